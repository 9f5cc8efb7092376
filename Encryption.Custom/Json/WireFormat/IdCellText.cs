using Encryption.Custom.Json.Errors;

namespace Encryption.Custom.Json.WireFormat;

/// <summary>
/// How an encrypted document id is stored (docs/wire-format.md "Encrypted ids and partition keys"): the same
/// base64(marker ‖ cell) as every value, but in the URL-safe alphabet without padding (RFC 4648 §5: <c>-</c> for
/// <c>+</c>, <c>_</c> for <c>/</c>, no <c>=</c>), because Cosmos DB refuses an id holding <c>/</c>, and at most
/// <see cref="MaxStoredLength"/> characters, the service's limit for an id.
/// </summary>
/// <remarks>
/// The one place that knows this. Writers encode a value in the standard alphabet and call <see cref="ToStored"/>;
/// readers turn the stored text back with <see cref="ToStandard"/> before any codec sees it, so the codec, the shape
/// test and the key search keep one canonical form. Each form is accepted only at its place: the URL-safe form at the
/// top-level <c>id</c>, the standard form everywhere else.
/// </remarks>
internal static class IdCellText
{
    /// <summary>The most characters Cosmos DB accepts in an id.</summary>
    public const int MaxStoredLength = 255;

    /// <summary>The most UTF-8 bytes an id may hold to be encrypted: its cell then fits <see cref="MaxStoredLength"/> characters.</summary>
    /// <remarks>marker ‖ cell is 66 + 16·⌊n/16⌋ bytes; 178 bytes (n ≤ 127) encode to 238 characters, 194 to 259.</remarks>
    public const int MaxPlainTextLength = 127;

    /// <summary>Scratch large enough for the standard form of any stored id cell.</summary>
    public const int StandardScratchLength = 256;

    /// <summary>The policy path of the document id.</summary>
    public const string Path = "/id";

    /// <summary>Whether <paramref name="selector"/> (a path's UTF-8 text) is the document id's.</summary>
    public static bool IsIdSelector(ReadOnlySpan<byte> selector) => selector.SequenceEqual("/id"u8);

    /// <summary>Whether <paramref name="utf8Name"/> (a top-level property name, unescaped) is the document id's.</summary>
    public static bool IsIdName(ReadOnlySpan<byte> utf8Name) => utf8Name.SequenceEqual("id"u8);

    /// <summary>
    /// Turns the standard padded base64 just written at the start of <paramref name="text"/> into the stored form,
    /// in place, and returns its length.
    /// </summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.LimitExceeded"/>: the id is too long to be encrypted.</exception>
    public static int ToStored(Span<byte> text)
    {
        int length = text.Length;
        while (length > 0 && text[length - 1] == (byte)'=')
        {
            length--;
        }

        if (length > MaxStoredLength)
        {
            throw new EncryptionException(
                EncryptionErrorKind.LimitExceeded,
                $"The document id is too long to be encrypted: an encrypted id holds at most {MaxPlainTextLength} UTF-8 bytes, so that its ciphertext fits the {MaxStoredLength} characters Cosmos DB allows.",
                dataEncryptionKeyId: null,
                path: Path);
        }

        Span<byte> stored = text[..length];
        stored.Replace((byte)'+', (byte)'-');
        stored.Replace((byte)'/', (byte)'_');
        return length;
    }

    /// <summary>
    /// The standard padded form of a stored id (written to <paramref name="scratch"/>, at least
    /// <see cref="StandardScratchLength"/> bytes), or an empty span when <paramref name="stored"/> is not a canonical
    /// stored form: too long, a character outside the URL-safe alphabet (a standard-alphabet <c>+</c>, <c>/</c> or
    /// <c>=</c> included), or a length no base64 has. An empty span is shaped like nothing, so a reader takes such an
    /// id for plaintext (unlisted) or refuses it as not a valid value (listed).
    /// </summary>
    public static ReadOnlySpan<byte> ToStandard(ReadOnlySpan<byte> stored, Span<byte> scratch)
    {
        if (stored.Length is 0 or > MaxStoredLength || stored.Length % 4 == 1)
        {
            return default;
        }

        for (int i = 0; i < stored.Length; i++)
        {
            byte c = stored[i];
            bool valid = c is (>= (byte)'A' and <= (byte)'Z') or (>= (byte)'a' and <= (byte)'z') or (>= (byte)'0' and <= (byte)'9') or (byte)'-' or (byte)'_';
            if (!valid)
            {
                return default;
            }

            scratch[i] = c == (byte)'-' ? (byte)'+' : c == (byte)'_' ? (byte)'/' : c;
        }

        int length = stored.Length;
        while (length % 4 != 0)
        {
            scratch[length++] = (byte)'=';
        }

        return scratch[..length];
    }

    /// <summary>
    /// <paramref name="text"/> as the value codec reads it: unchanged for any property but the top-level id; for the
    /// id, its standard form (<see cref="ToStandard"/>) in <paramref name="scratch"/>.
    /// </summary>
    public static ReadOnlySpan<byte> ForCodec(ReadOnlySpan<byte> utf8Name, ReadOnlySpan<byte> text, Span<byte> scratch) =>
        IsIdName(utf8Name) ? ToStandard(text, scratch) : text;

    /// <summary>The form of <see cref="ForCodec(ReadOnlySpan{byte}, ReadOnlySpan{byte}, Span{byte})"/> for callers that know the value's path (<c>/id</c> for the document id).</summary>
    public static ReadOnlySpan<byte> ForCodec(string path, ReadOnlySpan<byte> text, Span<byte> scratch) =>
        path == Path ? ToStandard(text, scratch) : text;

    /// <summary>The form of <see cref="ForCodec(string, ReadOnlySpan{byte}, Span{byte})"/> for callers that hold the value as a .NET string.</summary>
    public static string ForCodec(string path, string text)
    {
        if (path != Path)
        {
            return text;
        }

        Span<byte> stored = stackalloc byte[MaxStoredLength];
        Span<byte> scratch = stackalloc byte[StandardScratchLength];
        if (text.Length > MaxStoredLength)
        {
            return string.Empty;
        }

        if (!System.Text.Encoding.UTF8.TryGetBytes(text, stored, out int length))
        {
            return string.Empty;
        }

        ReadOnlySpan<byte> standard = ToStandard(stored[..length], scratch);
        return System.Text.Encoding.ASCII.GetString(standard);
    }

    /// <summary>Throws when a policy encrypts the id other than deterministically (a lookup by id must find the document).</summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.InvalidOptions"/>.</exception>
    public static void ThrowUnlessDeterministic(bool deterministic)
    {
        if (!deterministic)
        {
            JsonErrors.ThrowInvalidPath(Path, "the document id can be encrypted only deterministically (PathEncryptionType.Deterministic): point reads, patch, batch and read-many look a document up by the id's ciphertext, which must be the same for the same id.");
        }
    }
}

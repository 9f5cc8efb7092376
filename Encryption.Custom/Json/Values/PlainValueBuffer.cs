using System.Security.Cryptography;
using System.Text.Json;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Values;

/// <summary>
/// A value encrypted on its own, as marker and plaintext (<see cref="PlainValue"/>'s rules), held for one or more
/// encryptions (a query operand is encrypted under every accepted key). Disposing wipes the plaintext.
/// </summary>
internal sealed class PlainValueBuffer : IDisposable
{
    private readonly byte[] _plainText;
    private readonly int _length;

    private PlainValueBuffer(TypeMarker marker, byte[] plainText, int length)
    {
        Marker = marker;
        _plainText = plainText;
        _length = length;
    }

    public TypeMarker Marker { get; }

    public ReadOnlySpan<byte> PlainText => _plainText.AsSpan(0, _length);

    /// <summary>
    /// One UTF-8 JSON value, as a serializer wrote it (a patch value, a query parameter, a partition key token), or
    /// <see langword="null"/> for the JSON <c>null</c>, which is never encrypted.
    /// </summary>
    /// <exception cref="EncryptionException">Not one JSON value (nothing from the reader's message: it may quote plaintext), or one no cell can hold, or nested deeper than <paramref name="maxDepth"/>.</exception>
    public static PlainValueBuffer? FromJson(ReadOnlySpan<byte> json, scoped in ValueSite site, int maxDepth)
    {
        var reader = new Utf8JsonReader(json, new JsonReaderOptions { MaxDepth = maxDepth + 1 });
        PlainValueBuffer? value = null;
        try
        {
            if (!reader.Read())
            {
                JsonErrors.ThrowUnsupportedValue(site.Path);
            }

            value = reader.TokenType == JsonTokenType.Null ? null : Read(ref reader, json, site, maxDepth);
            if (reader.Read())
            {
                JsonErrors.ThrowUnsupportedValue(site.Path);
            }

            return value;
        }
        catch (JsonException)
        {
            value?.Dispose();
            JsonErrors.ThrowUnsupportedValue(site.Path);
            return null;
        }
        catch
        {
            value?.Dispose();
            throw;
        }
    }

    /// <summary>A string (a SQL string literal, an id or partition key looked up).</summary>
    /// <exception cref="EncryptionException">The string holds a lone surrogate.</exception>
    public static PlainValueBuffer FromString(string value, string path)
    {
        byte[] utf8 = new byte[PlainValue.GetMaxStringLength(value)];
        try
        {
            return new(TypeMarker.String, utf8, PlainValue.String(value, utf8, path));
        }
        catch
        {
            // An encoder that fails on a lone surrogate has already written what came before it.
            CryptographicOperations.ZeroMemory(utf8);
            throw;
        }
    }

    /// <summary>A number from its text (a SQL number literal): <see cref="PlainValue.Number"/>.</summary>
    /// <exception cref="EncryptionException">No cell can hold the number.</exception>
    public static PlainValueBuffer FromNumber(ReadOnlySpan<byte> text, string path)
    {
        byte[] scalar = new byte[ScalarEncoding.Length];
        return new(PlainValue.Number(text, scalar, path), scalar, scalar.Length);
    }

    /// <summary>An integer (a SQL hexadecimal literal).</summary>
    public static PlainValueBuffer FromInteger(long value)
    {
        byte[] scalar = new byte[ScalarEncoding.Length];
        return new(PlainValue.Integer(value, scalar), scalar, scalar.Length);
    }

    /// <summary>true or false.</summary>
    public static PlainValueBuffer FromBoolean(bool value)
    {
        byte[] scalar = new byte[ScalarEncoding.Length];
        return new(PlainValue.Boolean(value, scalar), scalar, scalar.Length);
    }

    /// <summary>A value decrypted from a cell: marker and plaintext as they were encrypted. Takes ownership of <paramref name="plainText"/>.</summary>
    public static PlainValueBuffer FromDecrypted(TypeMarker marker, byte[] plainText, int length) => new(marker, plainText, length);

    public void Dispose() => CryptographicOperations.ZeroMemory(_plainText);

    // The value at the reader (on its first token; left on its last), by the same rules and helpers as a document's.
    private static PlainValueBuffer Read(ref Utf8JsonReader reader, ReadOnlySpan<byte> json, scoped in ValueSite site, int maxDepth)
    {
        byte[] scalar = new byte[ScalarEncoding.Length];
        TypeMarker marker = PlainValue.Classify(ref reader, scalar, site.IsDeterministic, site.Path, site.KeyId);
        switch (marker)
        {
            case TypeMarker.String:
                byte[] text = new byte[reader.ValueSpan.Length];
                return new(marker, text, JsonStringUnescaper.CopyString(ref reader, text));

            case TypeMarker.Object or TypeMarker.Array:
                int start = (int)reader.TokenStartIndex;
                JsonDepth.SkipContainer(ref reader, maxDepth, 0);
                ReadOnlySpan<byte> container = json[start..(int)reader.BytesConsumed];
                byte[] compact = new byte[container.Length];
                int length = JsonWhitespace.ContainsWhitespace(container)
                    ? JsonWhitespace.Compact(container, compact)
                    : Copy(container, compact);
                return new(marker, compact, length);

            default:
                return new(marker, scalar, scalar.Length);
        }
    }

    private static int Copy(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        source.CopyTo(destination);
        return source.Length;
    }
}

using System.Runtime.CompilerServices;
using System.Text;
using System.Text.Unicode;
using Encryption.Custom.Json.Errors;

namespace Encryption.Custom.Json.Text;

/// <summary>
/// The UTF-8 check every input gets before either processor reads it. JSON outside strings is ASCII, so one
/// vectorized pass over the whole input checks every name and every value, encrypted or not, before anything is
/// written: a value encrypted from invalid bytes could never be decrypted again (the decrypting side refuses
/// plaintext that is not UTF-8), and <see cref="System.Text.Json.Utf8JsonReader"/> does not check string contents.
/// </summary>
internal static class Utf8Validation
{
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.MalformedDocument"/>, naming the byte offset.</exception>
    public static void ThrowIfInvalid(ReadOnlySpan<byte> input)
    {
        if (!Utf8.IsValid(input))
        {
            ThrowInvalid(input);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowInvalid(ReadOnlySpan<byte> input)
    {
        // Cold path: find the first invalid sequence to name its offset (never its bytes).
        int offset = 0;
        while (offset < input.Length && Rune.DecodeFromUtf8(input[offset..], out _, out int consumed) == System.Buffers.OperationStatus.Done)
        {
            offset += consumed;
        }

        JsonErrors.ThrowNotUtf8(offset);
    }
}

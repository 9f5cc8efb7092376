using System.Diagnostics;
using System.Text.Json;
using Encryption.Custom.Json.Errors;

namespace Encryption.Custom.Json.Text;

/// <summary>Unescapes JSON strings without allocating, turning the reader's escape errors into domain errors.</summary>
internal static class JsonStringUnescaper
{
    /// <summary>
    /// Unescapes the current string or property name of <paramref name="reader"/> into <paramref name="destination"/>
    /// (at least <c>ValueSpan.Length</c> bytes).
    /// </summary>
    /// <returns>The number of bytes written.</returns>
    /// <exception cref="EncryptionException">An escape names a lone surrogate (<see cref="EncryptionErrorKind.MalformedDocument"/>).</exception>
    public static int CopyString(ref Utf8JsonReader reader, scoped Span<byte> destination)
    {
        try
        {
            return reader.CopyString(destination);
        }
        catch (InvalidOperationException)
        {
            // The reader validates escapes lazily: "\ud800" alone is well-formed JSON but not text.
            JsonErrors.ThrowMalformed("The document contains a string with an escaped lone surrogate, which is not valid text.");
            return 0;
        }
    }

    /// <summary>
    /// Unescapes the string token <paramref name="quotedToken"/> (its quotes included) into
    /// <paramref name="destination"/> (at least the token length).
    /// </summary>
    /// <returns>The number of bytes written.</returns>
    /// <exception cref="EncryptionException">An escape names a lone surrogate.</exception>
    public static int Unescape(ReadOnlySpan<byte> quotedToken, Span<byte> destination)
    {
        // A reader over exactly this token handles every escape form the same way the scan accepted it.
        var reader = new Utf8JsonReader(quotedToken);
        bool read = reader.Read();
        Debug.Assert(read && reader.TokenType == JsonTokenType.String, "A validated string token.");
        return CopyString(ref reader, destination);
    }
}

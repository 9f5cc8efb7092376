using System.Diagnostics;
using System.Text.Json;

namespace Encryption.Custom.Json.Text;

/// <summary>Unescapes a JSON string token that has already been validated, without allocating.</summary>
internal static class JsonStringUnescaper
{
    /// <summary>
    /// Unescapes the string token <paramref name="quotedToken"/> (its quotes included) into
    /// <paramref name="destination"/> (at least the token length).
    /// </summary>
    /// <returns>The number of bytes written.</returns>
    public static int Unescape(ReadOnlySpan<byte> quotedToken, Span<byte> destination)
    {
        // A reader over exactly this token handles every escape form the same way the scan accepted it.
        var reader = new Utf8JsonReader(quotedToken);
        bool read = reader.Read();
        Debug.Assert(read && reader.TokenType == JsonTokenType.String, "A validated string token.");
        return reader.CopyString(destination);
    }
}

namespace Encryption.Custom.Diagnostics;

/// <summary>
/// Shortens text that may come from a document (a DEK id in <c>_en</c>, a path, an algorithm name, a document
/// id) before it goes into an exception message, a log or a telemetry tag: whoever writes documents chooses it, at
/// any length. The full value stays available where it is data (for example <see cref="EncryptionException.DataEncryptionKeyId"/>).
/// </summary>
internal static class UntrustedText
{
    /// <summary>The most characters of such text that are repeated.</summary>
    public const int MaxLength = 64;

    /// <summary><paramref name="value"/> itself when short enough, else its first characters and "…" (never half a surrogate pair).</summary>
    public static string Shorten(string value)
    {
        if (value.Length <= MaxLength)
        {
            return value;
        }

        int length = char.IsHighSurrogate(value[MaxLength - 1]) ? MaxLength - 1 : MaxLength;
        return string.Concat(value.AsSpan(0, length), "…");
    }
}

using System.Diagnostics.CodeAnalysis;
using Encryption.Custom.Json.Errors;

namespace Encryption.Custom.Json.WireFormat;

/// <summary>
/// The names and rules of the encryption metadata (wire-format.md §3.1), which every encrypted document carries
/// as its last top-level property:
/// <c>"_ei": {"_ef": 3, "_en": "&lt;dek id&gt;", "_ea": "&lt;algorithm&gt;", "_ed": null, "_ep": ["/a", "/b"]}</c>.
/// </summary>
internal static class EncryptionEnvelope
{
    /// <summary>The top-level property that holds the metadata.</summary>
    public const string PropertyName = "_ei";

    /// <summary>The format version (2 or 3).</summary>
    public const string FormatVersionName = "_ef";

    /// <summary>The data encryption key id.</summary>
    public const string KeyIdName = "_en";

    /// <summary>The algorithm name.</summary>
    public const string AlgorithmName = "_ea";

    /// <summary>The legacy encrypted blob (format 2); null or absent in format 3.</summary>
    public const string EncryptedDataName = "_ed";

    /// <summary>The paths that were encrypted.</summary>
    public const string PathsName = "_ep";

    /// <summary>The format this library writes.</summary>
    public const int CurrentFormatVersion = 3;

    /// <summary>The legacy format, read only.</summary>
    public const int LegacyFormatVersion = 2;

    /// <summary>
    /// The extended format (nested selectors; later bound cells): written only when a feature needs it
    /// (wire-format.md, "Format 101"). 100-199 are kept for this family, away from the numbers Microsoft uses.
    /// </summary>
    public const int ExtendedFormatVersion = 101;

    /// <summary>The member of <c>_ei</c> that lists the features of an extended-format document: <c>{"v":1,"crit":[...]}</c>.</summary>
    public const string FeaturesName = "_ev";

    /// <summary>
    /// The top-level anchor every extended-format document carries and lists first in <c>_ep</c>: its value is too
    /// short to be a cell, so a reader that takes the document for format 3 fails on it instead of passing nested
    /// ciphertext through as data.
    /// </summary>
    public const string AnchorName = "_ex";

    public static ReadOnlySpan<byte> FeaturesNameUtf8 => "_ev"u8;

    public static ReadOnlySpan<byte> AnchorNameUtf8 => "_ex"u8;

    public static ReadOnlySpan<byte> PropertyNameUtf8 => "_ei"u8;

    public static ReadOnlySpan<byte> FormatVersionNameUtf8 => "_ef"u8;

    public static ReadOnlySpan<byte> KeyIdNameUtf8 => "_en"u8;

    public static ReadOnlySpan<byte> AlgorithmNameUtf8 => "_ea"u8;

    public static ReadOnlySpan<byte> EncryptedDataNameUtf8 => "_ed"u8;

    public static ReadOnlySpan<byte> PathsNameUtf8 => "_ep"u8;

    /// <summary>The document id property, which is never encrypted and names documents in errors.</summary>
    public static ReadOnlySpan<byte> IdNameUtf8 => "id"u8;

    /// <summary>Maps the UTF-8 algorithm name of a document to the shared constant, without allocating.</summary>
    /// <returns><see langword="false"/> when the name is not one this library knows.</returns>
    public static bool TryGetAlgorithm(ReadOnlySpan<byte> utf8Name, [NotNullWhen(true)] out string? algorithm)
    {
        if (utf8Name.SequenceEqual("MdeAeadAes256CbcHmac256Randomized"u8))
        {
            algorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;
            return true;
        }

        if (utf8Name.SequenceEqual("AEAes256CbcHmacSha256Randomized"u8))
        {
            algorithm = CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized;
            return true;
        }

        algorithm = null;
        return false;
    }

    /// <summary>
    /// Checks a document's <c>_ef</c> before anything else of its metadata: a format this library does not know
    /// (a future one) is unsupported, whatever its other members look like.
    /// </summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.UnsupportedFormat"/>.</exception>
    public static void CheckFormatVersion(long formatVersion)
    {
        if (formatVersion is not (CurrentFormatVersion or LegacyFormatVersion or ExtendedFormatVersion))
        {
            JsonErrors.ThrowUnsupportedFormatVersion(formatVersion);
        }
    }

    /// <summary>
    /// Checks a document's <c>_ef</c>/<c>_ea</c> pair: format 3 goes with the current algorithm, format 2 with the
    /// legacy one; anything else is an unsupported format.
    /// </summary>
    /// <param name="formatVersion">The <c>_ef</c> value.</param>
    /// <param name="algorithm">The <c>_ea</c> value, mapped by <see cref="TryGetAlgorithm"/> (or a string from a DOM).</param>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.UnsupportedFormat"/>.</exception>
    public static EnvelopeFormat ResolveFormat(long formatVersion, string algorithm)
    {
        if (formatVersion is CurrentFormatVersion or ExtendedFormatVersion)
        {
            if (string.Equals(algorithm, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, StringComparison.Ordinal))
            {
                return formatVersion == CurrentFormatVersion ? EnvelopeFormat.PerProperty : EnvelopeFormat.Extended;
            }
        }
        else if (formatVersion == LegacyFormatVersion)
        {
            if (string.Equals(algorithm, CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized, StringComparison.Ordinal))
            {
                return EnvelopeFormat.LegacyBlob;
            }
        }
        else
        {
            CheckFormatVersion(formatVersion);
        }

        JsonErrors.ThrowUnsupportedAlgorithm(algorithm, formatVersion);
        return default;
    }
}

// Sub-key derivation of AEAD_AES_256_CBC_HMAC_SHA256 (wire-format.md §1):
//   subKey = HMAC-SHA256(key = rootKey(32), message = UTF-16LE(label)), full 32 bytes
//   destination(96) = encryptionKey(32) ‖ macKey(32) ‖ ivKey(32)
// The encryption and MAC labels are the formats' own. The IV key is this library's, for deterministic encryption
// (wire-format.md, "Deterministic values"): its label names this library and the purpose, so no other scheme that
// derives an IV key from the same DEK (SQL Server's "cell IV key") can ever produce the same IVs.
// The extended format's keys (bound cell MAC, document commitment, query token; wire-format.md "Bound cells") use
// the same suffix after this library's own names, and are the same for both label sets. They are not part of the
// 96 bytes: DeriveExtendedSubKey derives one when a keyed context first needs it.
using System.Security.Cryptography;
using System.Text;

namespace Encryption.Custom.Crypto;

/// <summary>Derives the encryption, MAC and IV keys of a data encryption key from its root key.</summary>
internal static class AeadKeyDerivation
{
    private const string LabelSuffix = " key with encryption algorithm:AEAD_AES_256_CBC_HMAC_SHA256 and key length:256";
    private const string CurrentPrefix = "Microsoft SQL Server cell ";
    private const string LegacyPrefix = "Microsoft Azure Cosmos DB ";
    private const string DeterministicIvLabel = "Encryption.Custom deterministic IV" + LabelSuffix;
    private const int StoredSubKeys = 3;

    // Labels are public constants of the format, not secrets: encoded once, indexed by labels * 3 + subKey.
    private static readonly byte[][] s_labels =
    [
        Encoding.Unicode.GetBytes(CurrentPrefix + "encryption" + LabelSuffix),
        Encoding.Unicode.GetBytes(CurrentPrefix + "MAC" + LabelSuffix),
        Encoding.Unicode.GetBytes(DeterministicIvLabel),
        Encoding.Unicode.GetBytes(LegacyPrefix + "encryption" + LabelSuffix),
        Encoding.Unicode.GetBytes(LegacyPrefix + "MAC" + LabelSuffix),
        Encoding.Unicode.GetBytes(DeterministicIvLabel),
    ];

    // Indexed by subKey - StoredSubKeys.
    private static readonly byte[][] s_extendedLabels =
    [
        Encoding.Unicode.GetBytes("Encryption.Custom bound cell MAC" + LabelSuffix),
        Encoding.Unicode.GetBytes("Encryption.Custom document commitment" + LabelSuffix),
        Encoding.Unicode.GetBytes("Encryption.Custom query token" + LabelSuffix),
    ];

    /// <summary>
    /// Writes the three sub-keys (encryption, MAC, IV; 32 bytes each) derived from <paramref name="rootKey"/> into
    /// <paramref name="destination"/>. No managed copy of the key bytes is made; the caller owns and wipes both spans.
    /// </summary>
    /// <param name="rootKey">The 32-byte root key of the data encryption key.</param>
    /// <param name="labels">Which label set to derive with.</param>
    /// <param name="destination">At least 96 bytes; must not overlap <paramref name="rootKey"/>.</param>
    /// <exception cref="ArgumentException">
    /// <paramref name="rootKey"/> is not 32 bytes, <paramref name="destination"/> is shorter than 96 bytes, or the spans overlap.
    /// </exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="labels"/> is not a defined value.</exception>
    public static void DeriveSubKeys(ReadOnlySpan<byte> rootKey, AeadKeyLabels labels, Span<byte> destination)
    {
        if (rootKey.Length != AeadCellLayout.KeySize)
        {
            AeadErrors.ThrowWrongKeySize(nameof(rootKey));
        }

        if (destination.Length < AeadCellLayout.DerivedKeysSize)
        {
            AeadErrors.ThrowDestinationTooSmall(nameof(destination));
        }

        // The first derived key would overwrite the root key that the next two still need.
        if (rootKey.Overlaps(destination))
        {
            AeadErrors.ThrowOverlappingBuffers(nameof(destination));
        }

        if (labels is not (AeadKeyLabels.Current or AeadKeyLabels.Legacy))
        {
            AeadErrors.ThrowUndefinedEnum(nameof(labels));
        }

        DeriveSubKey(rootKey, labels, AeadSubKey.Encryption, destination);
        DeriveSubKey(rootKey, labels, AeadSubKey.Mac, destination);
        DeriveSubKey(rootKey, labels, AeadSubKey.Iv, destination);
    }

    /// <summary>
    /// Writes one extended-format sub-key (<see cref="AeadSubKey.BoundMac"/>, <see cref="AeadSubKey.Commitment"/> or
    /// <see cref="AeadSubKey.QueryToken"/>) derived from <paramref name="rootKey"/> to the first 32 bytes of
    /// <paramref name="destination"/>. Its label is this library's, whichever label set the DEK's algorithm uses.
    /// </summary>
    /// <param name="rootKey">The 32-byte root key of the data encryption key.</param>
    /// <param name="subKey">Which extended sub-key.</param>
    /// <param name="destination">At least 32 bytes; must not overlap <paramref name="rootKey"/>.</param>
    /// <exception cref="ArgumentException">A span has the wrong length, or the spans overlap.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="subKey"/> is not an extended sub-key.</exception>
    public static void DeriveExtendedSubKey(ReadOnlySpan<byte> rootKey, AeadSubKey subKey, Span<byte> destination)
    {
        if (rootKey.Length != AeadCellLayout.KeySize)
        {
            AeadErrors.ThrowWrongKeySize(nameof(rootKey));
        }

        if (destination.Length < AeadCellLayout.KeySize)
        {
            AeadErrors.ThrowDestinationTooSmall(nameof(destination));
        }

        if (rootKey.Overlaps(destination))
        {
            AeadErrors.ThrowOverlappingBuffers(nameof(destination));
        }

        if (!IsExtended(subKey))
        {
            AeadErrors.ThrowUndefinedEnum(nameof(subKey));
        }

        if (HMACSHA256.HashData(rootKey, s_extendedLabels[(int)subKey - StoredSubKeys], destination[..AeadCellLayout.KeySize]) != AeadCellLayout.KeySize)
        {
            AeadErrors.ThrowCipherFailure();
        }
    }

    /// <summary>Whether <paramref name="subKey"/> is derived on demand rather than stored with the root key.</summary>
    public static bool IsExtended(AeadSubKey subKey) => subKey is AeadSubKey.BoundMac or AeadSubKey.Commitment or AeadSubKey.QueryToken;

    /// <summary>The UTF-16LE bytes of the label for one sub-key (exposed for tests and diagnostics; not secret).</summary>
    internal static ReadOnlySpan<byte> GetLabel(AeadKeyLabels labels, AeadSubKey subKey) =>
        IsExtended(subKey) ? s_extendedLabels[(int)subKey - StoredSubKeys] : s_labels[((int)labels * StoredSubKeys) + (int)subKey];

    private static void DeriveSubKey(ReadOnlySpan<byte> rootKey, AeadKeyLabels labels, AeadSubKey subKey, Span<byte> destination)
    {
        Span<byte> target = destination.Slice((int)subKey * AeadCellLayout.KeySize, AeadCellLayout.KeySize);

        // The span one-shot keys the native HMAC straight from the span: no managed copy of the root key.
        int written = HMACSHA256.HashData(rootKey, GetLabel(labels, subKey), target);
        if (written != AeadCellLayout.KeySize)
        {
            AeadErrors.ThrowCipherFailure();
        }
    }
}

// Sub-key derivation of AEAD_AES_256_CBC_HMAC_SHA256 (wire-format.md §1):
//   subKey = HMAC-SHA256(key = rootKey(32), message = UTF-16LE(label)), full 32 bytes
//   destination(96) = encryptionKey(32) ‖ macKey(32) ‖ ivKey(32)
// The encryption and MAC labels are the formats' own. The IV key is this library's, for deterministic encryption
// (wire-format.md, "Deterministic values"): its label names this library and the purpose, so no other scheme that
// derives an IV key from the same DEK (SQL Server's "cell IV key") can ever produce the same IVs.
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

    /// <summary>The UTF-16LE bytes of the label for one sub-key (exposed for tests and diagnostics; not secret).</summary>
    internal static ReadOnlySpan<byte> GetLabel(AeadKeyLabels labels, AeadSubKey subKey) =>
        s_labels[((int)labels * 3) + (int)subKey];

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

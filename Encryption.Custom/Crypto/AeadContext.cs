// Keyed state of one AEAD_AES_256_CBC_HMAC_SHA256 instance (wire-format.md §1), used by one thread at a time.
//   AES-256-CBC without padding under encKey (the AEAD pads by hand),
//   tag  = HMAC-SHA256(macKey, 0x01 ‖ IV ‖ C ‖ 0x01),
//   IV   = HMAC-SHA256(ivKey, context ‖ plaintext)[0..16] for deterministic IVs (the caller's context binds the
//          path and type of the value, wire-format.md "Deterministic values").
// Each part is keyed lazily, the first time it is needed, through AeadKeySource.UseSubKey: a decrypt-only
// workload never builds an encryption key schedule and randomized encryption never builds the IV key.
using System.Diagnostics;

namespace Encryption.Custom.Crypto;

/// <summary>
/// The keyed cipher and HMAC state one operation works with. A context is owned by exactly one operation at a
/// time (the <see cref="AeadContextPool"/> guarantees it), so implementations need no locking.
/// </summary>
internal abstract class AeadContext : IDisposable
{
    protected AeadContext(AeadKeySource keySource)
    {
        KeySource = keySource;
    }

    /// <summary>Where the sub-keys come from when a part is keyed for the first time.</summary>
    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    protected AeadKeySource KeySource { get; }

    /// <summary>
    /// AES-256-CBC-encrypts the concatenation of <paramref name="first"/> and <paramref name="second"/> (each a whole
    /// number of blocks, already padded) with <paramref name="iv"/> into <paramref name="destination"/> (same total length).
    /// </summary>
    public abstract void EncryptCbc(ReadOnlySpan<byte> iv, ReadOnlySpan<byte> first, ReadOnlySpan<byte> second, Span<byte> destination);

    /// <summary>
    /// AES-256-CBC-decrypts <paramref name="cipherText"/> (a whole number of blocks) with <paramref name="iv"/>, writing the
    /// first <c>firstDestination.Length</c> bytes of the result to <paramref name="firstDestination"/> and the rest to
    /// <paramref name="secondDestination"/>. Padding is left in place.
    /// </summary>
    public abstract void DecryptCbc(ReadOnlySpan<byte> iv, ReadOnlySpan<byte> cipherText, Span<byte> firstDestination, Span<byte> secondDestination);

    /// <summary>Writes HMAC-SHA256(macKey, 0x01 ‖ <paramref name="ivAndCipherText"/> ‖ 0x01) to <paramref name="tag"/> (32 bytes).</summary>
    public void ComputeTag(ReadOnlySpan<byte> ivAndCipherText, Span<byte> tag)
    {
        int length = ivAndCipherText.Length + 2;
        if (length <= AeadCellLayout.MaxStackBufferSize)
        {
            // Small cells: one contiguous input costs one native call instead of three (ciphertext is not secret).
            Span<byte> input = stackalloc byte[AeadCellLayout.MaxStackBufferSize];
            input[0] = AeadCellLayout.Version;
            ivAndCipherText.CopyTo(input[1..]);
            input[length - 1] = AeadCellLayout.VersionLength;
            ComputeMac(AeadSubKey.Mac, input[..length], default, default, tag);
        }
        else
        {
            ReadOnlySpan<byte> version = [AeadCellLayout.Version];
            ReadOnlySpan<byte> versionLength = [AeadCellLayout.VersionLength];
            ComputeMac(AeadSubKey.Mac, version, ivAndCipherText, versionLength, tag);
        }
    }

    /// <summary>Writes HMAC-SHA256(ivKey, <paramref name="context"/> ‖ <paramref name="plainText"/>) to <paramref name="mac"/> (32 bytes).</summary>
    public void ComputeIvMac(ReadOnlySpan<byte> context, ReadOnlySpan<byte> plainText, Span<byte> mac) =>
        ComputeMac(AeadSubKey.Iv, context, plainText, default, mac);

    /// <summary>Frees the keyed state (native implementations cleanse key schedules as they free them).</summary>
    public void Dispose()
    {
        Dispose(disposing: true);
        GC.SuppressFinalize(this);
    }

    /// <summary>
    /// Writes HMAC-SHA256(<paramref name="key"/>, <paramref name="first"/> ‖ <paramref name="second"/> ‖ <paramref name="third"/>)
    /// to <paramref name="mac"/> (32 bytes); <paramref name="key"/> is <see cref="AeadSubKey.Mac"/> or <see cref="AeadSubKey.Iv"/>.
    /// </summary>
    protected abstract void ComputeMac(AeadSubKey key, ReadOnlySpan<byte> first, ReadOnlySpan<byte> second, ReadOnlySpan<byte> third, Span<byte> mac);

    /// <summary>Releases the keyed state.</summary>
    protected abstract void Dispose(bool disposing);
}

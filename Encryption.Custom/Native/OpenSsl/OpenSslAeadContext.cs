// Keyed OpenSSL 3 state for AEAD_AES_256_CBC_HMAC_SHA256 (wire-format.md §1): up to two EVP_CIPHER_CTX
// (AES-256-CBC encrypt and decrypt schedules) and two HMAC-SHA256 pad-state pairs (MAC key, IV key), each
// built on first use. All of it is key-equivalent material in native memory: it exists only while the
// context is pooled or in use, the pool bounds how many contexts exist, and Dispose frees every part
// (OpenSSL cleanses the cipher contexts; the HMAC states are zeroed by us).
namespace Encryption.Custom.Native.OpenSsl;

/// <summary>An <see cref="AeadContext"/> that calls libcrypto 3 directly.</summary>
internal sealed class OpenSslAeadContext : AeadContext
{
    private OpenSslCbcCipher? _encryptor;
    private OpenSslCbcCipher? _decryptor;
    private OpenSslHmacSha256? _mac;
    private OpenSslHmacSha256? _ivMac;

    public OpenSslAeadContext(AeadKeySource keySource)
        : base(keySource)
    {
    }

    public override void EncryptCbc(ReadOnlySpan<byte> iv, ReadOnlySpan<byte> first, ReadOnlySpan<byte> second, Span<byte> destination)
    {
        OpenSslCbcCipher cipher = _encryptor ??= OpenSslCbcCipher.Create(KeySource, encrypting: true);
        cipher.Reset(iv);
        cipher.Update(first, destination[..first.Length]);
        cipher.Update(second, destination.Slice(first.Length, second.Length));
    }

    public override void DecryptCbc(ReadOnlySpan<byte> iv, ReadOnlySpan<byte> cipherText, Span<byte> firstDestination, Span<byte> secondDestination)
    {
        OpenSslCbcCipher cipher = _decryptor ??= OpenSslCbcCipher.Create(KeySource, encrypting: false);
        cipher.Reset(iv);
        cipher.Update(cipherText[..firstDestination.Length], firstDestination);
        cipher.Update(cipherText[firstDestination.Length..], secondDestination);
    }

    protected override void ComputeMac(AeadSubKey key, ReadOnlySpan<byte> first, ReadOnlySpan<byte> second, ReadOnlySpan<byte> third, Span<byte> mac)
    {
        OpenSslHmacSha256 hmac = key == AeadSubKey.Mac
            ? _mac ??= OpenSslHmacSha256.Create(KeySource, AeadSubKey.Mac)
            : _ivMac ??= OpenSslHmacSha256.Create(KeySource, AeadSubKey.Iv);
        hmac.Begin();
        hmac.Append(first);
        hmac.Append(second);
        hmac.Append(third);
        hmac.Finish(mac);
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _encryptor?.Dispose();
            _decryptor?.Dispose();
            _mac?.Dispose();
            _ivMac?.Dispose();
            _encryptor = _decryptor = null;
            _mac = _ivMac = null;
        }
    }
}

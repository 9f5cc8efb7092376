using System.Diagnostics;
using System.Security.Cryptography;

namespace Encryption.Custom.Keys.Local;

/// <summary>A local RSA key-encryption key for RSA-OAEP (SHA-1) and RSA-OAEP-256 key wrap.</summary>
internal sealed class LocalRsaKeyEncryptionKey : LocalKeyEncryptionKey
{
    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private readonly RSA _rsa;
    private readonly bool _hasPrivateKey;

    /// <summary>Takes ownership of <paramref name="rsa"/>.</summary>
    public LocalRsaKeyEncryptionKey(RSA rsa, bool hasPrivateKey)
    {
        _rsa = rsa;
        _hasPrivateKey = hasPrivateKey;
    }

    public override byte[] Wrap(ReadOnlySpan<byte> key, string algorithm) => _rsa.Encrypt(key, GetPadding(algorithm));

    public override byte[]? TryUnwrap(ReadOnlySpan<byte> wrappedKey, string algorithm)
    {
        RSAEncryptionPadding padding = GetPadding(algorithm);
        if (!_hasPrivateKey)
        {
            throw new InvalidOperationException("The local RSA key has no private part, so it can wrap but not unwrap.");
        }

        byte[] buffer = GC.AllocateUninitializedArray<byte>(_rsa.KeySize / 8, pinned: true);
        try
        {
            if (_rsa.TryDecrypt(wrappedKey, buffer, padding, out int written))
            {
                byte[] exact = CopyToPinned(buffer.AsSpan(0, written));
                return exact;
            }

            return null;
        }
        catch (CryptographicException)
        {
            // Wrong key, tampered input or wrong padding: all the same "does not unwrap" to the caller.
            return null;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(buffer);
        }
    }

    public override void Dispose() => _rsa.Dispose();

    private static RSAEncryptionPadding GetPadding(string algorithm)
    {
        switch (algorithm)
        {
            case KeyWrapAlgorithm.RsaOaep:
                return RSAEncryptionPadding.OaepSHA1;
            case KeyWrapAlgorithm.RsaOaep256:
                return RSAEncryptionPadding.OaepSHA256;
            default:
                ThrowUnsupportedAlgorithm(algorithm, "RSA");
                return null;
        }
    }
}

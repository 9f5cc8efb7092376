using System.Diagnostics;
using System.Security.Cryptography;

namespace Encryption.Custom.Keys.Local;

/// <summary>A local AES key-encryption key (128, 192 or 256 bits) for RFC 3394 and RFC 5649 key wrap.</summary>
internal sealed class LocalAesKeyEncryptionKey : LocalKeyEncryptionKey
{
    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private readonly byte[] _key;
    private int _disposed;

    /// <summary>Copies <paramref name="key"/> into a pinned buffer that <see cref="Dispose"/> zeroes.</summary>
    /// <exception cref="ArgumentException">The key is not 16, 24 or 32 bytes.</exception>
    public LocalAesKeyEncryptionKey(ReadOnlySpan<byte> key)
    {
        if (key.Length is not (16 or 24 or 32))
        {
            throw new ArgumentException("An AES key-encryption key is 16, 24 or 32 bytes.", nameof(key));
        }

        _key = CopyToPinned(key);
    }

    public override byte[] Wrap(ReadOnlySpan<byte> key, string algorithm)
    {
        ObjectDisposedException.ThrowIf(_disposed != 0, this);
        switch (algorithm)
        {
            case KeyWrapAlgorithm.AesKeyWrap:
                byte[] wrapped = new byte[AesKeyWrap.GetWrappedLength(key.Length)];
                AesKeyWrap.Wrap(_key, key, wrapped);
                return wrapped;
            case KeyWrapAlgorithm.AesKeyWrapPadded:
                byte[] padded = new byte[AesKeyWrap.GetPaddedWrappedLength(key.Length)];
                AesKeyWrap.WrapPadded(_key, key, padded);
                return padded;
            default:
                ThrowUnsupportedAlgorithm(algorithm, "AES");
                return null;
        }
    }

    public override byte[]? TryUnwrap(ReadOnlySpan<byte> wrappedKey, string algorithm)
    {
        ObjectDisposedException.ThrowIf(_disposed != 0, this);
        if (algorithm is not (KeyWrapAlgorithm.AesKeyWrap or KeyWrapAlgorithm.AesKeyWrapPadded))
        {
            ThrowUnsupportedAlgorithm(algorithm, "AES");
        }

        if (wrappedKey.Length < 16)
        {
            return null;
        }

        byte[] buffer = GC.AllocateUninitializedArray<byte>(wrappedKey.Length - 8, pinned: true);
        int written = buffer.Length;
        bool ok = algorithm == KeyWrapAlgorithm.AesKeyWrap
            ? AesKeyWrap.TryUnwrap(_key, wrappedKey, buffer)
            : AesKeyWrap.TryUnwrapPadded(_key, wrappedKey, buffer, out written);
        if (!ok)
        {
            CryptographicOperations.ZeroMemory(buffer);
            return null;
        }

        if (written == buffer.Length)
        {
            return buffer;
        }

        // RFC 5649 removed padding: hand out an exact-length pinned copy and wipe the longer buffer.
        byte[] exact = CopyToPinned(buffer.AsSpan(0, written));
        CryptographicOperations.ZeroMemory(buffer);
        return exact;
    }

    public override void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            CryptographicOperations.ZeroMemory(_key);
        }
    }
}

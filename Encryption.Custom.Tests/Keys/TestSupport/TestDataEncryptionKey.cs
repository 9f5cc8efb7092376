using System.Security.Cryptography;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Tests.Keys.TestSupport;

/// <summary>
/// A test-only key for tests where the protected key is not the point: it remembers which raw key it was made from
/// (so tests can tell keys apart) and whether it was disposed. Its "cipher" is a reversible XOR, not encryption.
/// </summary>
internal sealed class TestDataEncryptionKey : DataEncryptionKey
{
    private readonly byte[] _rawKey;
    private volatile bool _disposed;

    public TestDataEncryptionKey(ReadOnlySpan<byte> rawKey, string encryptionAlgorithm)
    {
        _rawKey = rawKey.ToArray();
        EncryptionAlgorithm = encryptionAlgorithm;
    }

    public override string EncryptionAlgorithm { get; }

    public bool IsDisposed => _disposed;

    /// <summary>A copy of the raw key, for assertions; empty once disposed (also when disposal races with the copy).</summary>
    public byte[] RawKey
    {
        get
        {
            byte[] copy = (byte[])_rawKey.Clone();
            return _disposed ? [] : copy;
        }
    }

    public override int GetEncryptByteCount(int plainTextLength) => plainTextLength;

    public override int GetDecryptByteCount(int cipherTextLength) => cipherTextLength;

    public override int EncryptData(ReadOnlySpan<byte> plainText, Span<byte> destination) => Transform(plainText, destination);

    public override int DecryptData(ReadOnlySpan<byte> cipherText, Span<byte> destination) => Transform(cipherText, destination);

    protected override void Dispose(bool disposing)
    {
        // Flag first, then wipe: a concurrent RawKey copy either sees the flag or copied an intact key.
        _disposed = true;
        CryptographicOperations.ZeroMemory(_rawKey);
        base.Dispose(disposing);
    }

    private int Transform(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        for (int i = 0; i < source.Length; i++)
        {
            destination[i] = (byte)(source[i] ^ _rawKey[i % _rawKey.Length]);
        }

        return source.Length;
    }
}

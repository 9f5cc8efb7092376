using System.Security.Cryptography;
using System.Text;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Tests.TestSupport;

/// <summary>
/// A plain, test-only implementation of wire-format.md §1 with the BCL one-shots, kept as an independent oracle:
/// sub-keys = HMAC-SHA256(root, UTF-16LE(label)); cell = 0x01 ‖ tag(32) ‖ IV(16) ‖ AES-256-CBC-PKCS7(plaintext);
/// tag = HMAC-SHA256(macKey, 0x01 ‖ IV ‖ C ‖ 0x01). Every failure is <see cref="EncryptionErrorKind.InvalidCipherText"/>.
/// </summary>
/// <remarks>
/// Keys live in ordinary managed arrays (fine for tests only). A fixed IV reproduces the known-answer vectors.
/// Allocates per call (one-shot AES), so it is not used by the allocation tests.
/// </remarks>
public sealed class ReferenceDataEncryptionKey : DataEncryptionKey
{
    public const int HeaderLength = 1 + TagLength + IvLength;
    public const int MinimumCellLength = HeaderLength + BlockLength;

    private const int TagLength = 32;
    private const int IvLength = 16;
    private const int BlockLength = 16;
    private const string AlgorithmSuffix = " key with encryption algorithm:AEAD_AES_256_CBC_HMAC_SHA256 and key length:256";

    private readonly byte[] _encryptionKey;
    private readonly byte[] _macKey;
    private readonly byte[]? _fixedIv;
    private readonly string _algorithm;
    private readonly Aes _aes;
    private readonly Lock _lock = new();
    private bool _disposed;

    public ReferenceDataEncryptionKey(ReadOnlySpan<byte> rootKey, string algorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, byte[]? fixedIv = null)
    {
        if (rootKey.Length != 32)
        {
            throw new ArgumentException("A root key is 32 bytes.", nameof(rootKey));
        }

        if (fixedIv is not null && fixedIv.Length != IvLength)
        {
            throw new ArgumentException("An IV is 16 bytes.", nameof(fixedIv));
        }

        _algorithm = algorithm;
        _encryptionKey = DeriveSubKey(rootKey, EncryptionLabel(algorithm));
        _macKey = DeriveSubKey(rootKey, MacLabel(algorithm));
        IvKey = DeriveSubKey(rootKey, IvLabel(algorithm));
        _fixedIv = fixedIv;
        _aes = Aes.Create();
        _aes.Key = _encryptionKey;
    }

    /// <summary>The root key 0x01..0x20 of the known-answer vectors and the fixture.</summary>
    public static byte[] VectorRootKey { get; } = Enumerable.Range(1, 32).Select(i => (byte)i).ToArray();

    /// <summary>The fixed IV 0x00..0x0f of the known-answer vectors.</summary>
    public static byte[] VectorIv { get; } = Enumerable.Range(0, 16).Select(i => (byte)i).ToArray();

    public override string EncryptionAlgorithm => _algorithm;

    /// <summary>The derived IV key (for the deterministic-IV vector).</summary>
    public byte[] IvKey { get; }

    /// <summary>The derived encryption key (for the derivation vectors).</summary>
    public ReadOnlySpan<byte> EncryptionKey => _encryptionKey;

    /// <summary>The derived MAC key (for the derivation vectors).</summary>
    public ReadOnlySpan<byte> MacKey => _macKey;

    /// <summary>How many cells this key decrypted (successfully or not).</summary>
    public int DecryptCount => Volatile.Read(ref _decryptCount);

    private int _decryptCount;

    public static ReferenceDataEncryptionKey CreateRandom(string algorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized) =>
        new(RandomNumberGenerator.GetBytes(32), algorithm);

    public static ReferenceDataEncryptionKey ForVectors(string algorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized) =>
        new(VectorRootKey, algorithm, VectorIv);

    public static string EncryptionLabel(string algorithm) => Prefix(algorithm) + " encryption" + AlgorithmSuffix;

    public static string MacLabel(string algorithm) => Prefix(algorithm) + " MAC" + AlgorithmSuffix;

    /// <summary>The deterministic IV key's label: the library's own, the same for every algorithm (wire-format.md).</summary>
    public static string IvLabel(string algorithm) => "Encryption.Custom deterministic IV" + AlgorithmSuffix;

    public static byte[] DeriveSubKey(ReadOnlySpan<byte> rootKey, string label) => HMACSHA256.HashData(rootKey, Encoding.Unicode.GetBytes(label));

    public override int GetEncryptByteCount(int plainTextLength)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(plainTextLength);
        return HeaderLength + (BlockLength * ((plainTextLength / BlockLength) + 1));
    }

    public override int GetDecryptByteCount(int cipherTextLength)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(cipherTextLength);
        return Math.Max(cipherTextLength - HeaderLength, 0);
    }

    public override int EncryptData(ReadOnlySpan<byte> plainText, Span<byte> destination)
    {
        Span<byte> iv = stackalloc byte[IvLength];
        if (_fixedIv is not null)
        {
            _fixedIv.CopyTo(iv);
        }
        else
        {
            RandomNumberGenerator.Fill(iv);
        }

        return EncryptWithIv(plainText, iv, destination);
    }

    /// <summary>Deterministic encryption written from wire-format.md alone: IV = HMAC-SHA256(ivKey, context ‖ plaintext)[0..16].</summary>
    internal override int EncryptDeterministicLeased(ReadOnlySpan<byte> ivContext, ReadOnlySpan<byte> plainText, Span<byte> destination) =>
        EncryptWithIv(plainText, HMACSHA256.HashData(IvKey, (byte[])[.. ivContext, .. plainText])[..IvLength], destination);

    /// <summary>The same check from wire-format.md alone: the cell's IV (after version and tag) against the derived one.</summary>
    internal override bool HasDeterministicIvLeased(ReadOnlySpan<byte> ivContext, ReadOnlySpan<byte> plainText, ReadOnlySpan<byte> cell) =>
        cell.Length >= 1 + 32 + IvLength
        && HMACSHA256.HashData(IvKey, (byte[])[.. ivContext, .. plainText]).AsSpan(0, IvLength).SequenceEqual(cell.Slice(1 + 32, IvLength));

    private int EncryptWithIv(ReadOnlySpan<byte> plainText, ReadOnlySpan<byte> iv, Span<byte> destination)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        int length = GetEncryptByteCount(plainText.Length);
        if (destination.Length < length)
        {
            throw new ArgumentException("Destination too short.", nameof(destination));
        }

        byte[] cipherText;
        lock (_lock)
        {
            cipherText = _aes.EncryptCbc(plainText, iv, PaddingMode.PKCS7);
        }

        destination[0] = 0x01;
        iv.CopyTo(destination[(1 + TagLength)..]);
        cipherText.CopyTo(destination[HeaderLength..]);
        ComputeTag(iv, cipherText, destination.Slice(1, TagLength));
        return length;
    }

    public override int DecryptData(ReadOnlySpan<byte> cipherText, Span<byte> destination)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        Interlocked.Increment(ref _decryptCount);
        if (cipherText.Length < MinimumCellLength || (cipherText.Length - HeaderLength) % BlockLength != 0 || cipherText[0] != 0x01)
        {
            throw Invalid();
        }

        ReadOnlySpan<byte> tag = cipherText.Slice(1, TagLength);
        ReadOnlySpan<byte> iv = cipherText.Slice(1 + TagLength, IvLength);
        ReadOnlySpan<byte> body = cipherText[HeaderLength..];
        Span<byte> expected = stackalloc byte[TagLength];
        ComputeTag(iv, body, expected);
        if (!CryptographicOperations.FixedTimeEquals(tag, expected))
        {
            throw Invalid();
        }

        byte[] plainText;
        try
        {
            lock (_lock)
            {
                plainText = _aes.DecryptCbc(body, iv, PaddingMode.PKCS7);
            }
        }
        catch (CryptographicException)
        {
            throw Invalid();
        }

        if (destination.Length < plainText.Length)
        {
            throw new ArgumentException("Destination too short.", nameof(destination));
        }

        plainText.CopyTo(destination);
        CryptographicOperations.ZeroMemory(plainText);
        return plainText.Length;
    }

    /// <summary>The deterministic IV of wire-format.md for a value of <paramref name="path"/> with <paramref name="marker"/>.</summary>
    public byte[] DeterministicIv(string path, byte marker, ReadOnlySpan<byte> plainText)
    {
        byte[] utf8 = Encoding.UTF8.GetBytes(path);
        return HMACSHA256.HashData(IvKey, (byte[])[.. BitConverter.GetBytes(utf8.Length), .. utf8, marker, .. plainText])[..IvLength];
    }

    public override string ToString() => $"ReferenceDataEncryptionKey({_algorithm})";

    protected override void Dispose(bool disposing)
    {
        if (!_disposed)
        {
            _disposed = true;
            CryptographicOperations.ZeroMemory(_encryptionKey);
            CryptographicOperations.ZeroMemory(_macKey);
            CryptographicOperations.ZeroMemory(IvKey);
            _aes.Dispose();
        }

        base.Dispose(disposing);
    }

    private static string Prefix(string algorithm) => algorithm switch
    {
        CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized => "Microsoft SQL Server cell",
        CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized => "Microsoft Azure Cosmos DB",
        _ => throw new ArgumentOutOfRangeException(nameof(algorithm), algorithm, "Unknown algorithm."),
    };

    private static EncryptionException Invalid() =>
        new(EncryptionErrorKind.InvalidCipherText, "The ciphertext is not valid for this key.");

    private void ComputeTag(ReadOnlySpan<byte> iv, ReadOnlySpan<byte> cipherText, Span<byte> tag)
    {
        byte[] message = new byte[1 + IvLength + cipherText.Length + 1];
        message[0] = 0x01;
        iv.CopyTo(message.AsSpan(1));
        cipherText.CopyTo(message.AsSpan(1 + IvLength));
        message[^1] = 0x01;
        HMACSHA256.HashData(_macKey, message, tag);
    }
}

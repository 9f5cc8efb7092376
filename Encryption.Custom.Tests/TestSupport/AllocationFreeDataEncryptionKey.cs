using System.Security.Cryptography;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Tests.TestSupport;

/// <summary>
/// A test-only AEAD_AES_256_CBC_HMAC_SHA256 key (wire-format.md §1) that allocates nothing per call once warm, so
/// that allocation tests measure the processors alone. Cross-checked against <see cref="ReferenceDataEncryptionKey"/>.
/// </summary>
/// <remarks>
/// One long-lived CBC transform per direction keeps chaining across calls; a new message's IV is folded into the
/// first block (CBC(chain, P1 ⊕ IV ⊕ chain) = CBC(IV, P1)), so no transform is created per call. Serialized by a
/// lock; keys in managed arrays (tests only).
/// </remarks>
public sealed class AllocationFreeDataEncryptionKey : DataEncryptionKey
{
    private const int TagLength = 32;
    private const int IvLength = 16;
    private const int BlockLength = 16;
    private const int HeaderLength = 1 + TagLength + IvLength;

    private readonly Lock _lock = new();
    private readonly Aes _aes;
    private readonly ICryptoTransform _encryptor;
    private readonly ICryptoTransform _decryptor;
    private readonly IncrementalHash _hmac;
    private readonly byte[] _encryptChain = new byte[BlockLength];
    private readonly byte[] _decryptChain = new byte[BlockLength];
    private byte[] _input = new byte[4096];
    private byte[] _output = new byte[4096];
    private bool _disposed;

    public AllocationFreeDataEncryptionKey(ReadOnlySpan<byte> rootKey)
    {
        const string Algorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;
        byte[] encryptionKey = ReferenceDataEncryptionKey.DeriveSubKey(rootKey, ReferenceDataEncryptionKey.EncryptionLabel(Algorithm));
        byte[] macKey = ReferenceDataEncryptionKey.DeriveSubKey(rootKey, ReferenceDataEncryptionKey.MacLabel(Algorithm));
        _aes = Aes.Create();
        _aes.Mode = CipherMode.CBC;
        _aes.Padding = PaddingMode.None;
        _encryptor = _aes.CreateEncryptor(encryptionKey, new byte[IvLength]);
        _decryptor = _aes.CreateDecryptor(encryptionKey, new byte[IvLength]);
        _hmac = IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, macKey);
        CryptographicOperations.ZeroMemory(encryptionKey);
        CryptographicOperations.ZeroMemory(macKey);
    }

    public override string EncryptionAlgorithm => CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

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
        int length = GetEncryptByteCount(plainText.Length);
        ArgumentOutOfRangeException.ThrowIfLessThan(destination.Length, length, nameof(destination));
        int bodyLength = length - HeaderLength;
        lock (_lock)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            Span<byte> iv = destination.Slice(1 + TagLength, IvLength);
            RandomNumberGenerator.Fill(iv);
            EnsureCapacity(bodyLength);

            // PKCS#7 by hand, then fold IV and chain into the first block.
            plainText.CopyTo(_input);
            byte pad = (byte)(bodyLength - plainText.Length);
            _input.AsSpan(plainText.Length, pad).Fill(pad);
            for (int i = 0; i < BlockLength; i++)
            {
                _input[i] ^= (byte)(iv[i] ^ _encryptChain[i]);
            }

            _encryptor.TransformBlock(_input, 0, bodyLength, _output, 0);
            _output.AsSpan(bodyLength - BlockLength, BlockLength).CopyTo(_encryptChain);
            _output.AsSpan(0, bodyLength).CopyTo(destination[HeaderLength..]);
            CryptographicOperations.ZeroMemory(_input.AsSpan(0, bodyLength));

            destination[0] = 0x01;
            ComputeTag(iv, destination.Slice(HeaderLength, bodyLength), destination.Slice(1, TagLength));
        }

        return length;
    }

    public override int DecryptData(ReadOnlySpan<byte> cipherText, Span<byte> destination)
    {
        if (cipherText.Length < HeaderLength + BlockLength || (cipherText.Length - HeaderLength) % BlockLength != 0 || cipherText[0] != 0x01)
        {
            throw Invalid();
        }

        int bodyLength = cipherText.Length - HeaderLength;
        ReadOnlySpan<byte> iv = cipherText.Slice(1 + TagLength, IvLength);
        ReadOnlySpan<byte> body = cipherText[HeaderLength..];
        lock (_lock)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            Span<byte> expected = stackalloc byte[TagLength];
            ComputeTag(iv, body, expected);
            if (!CryptographicOperations.FixedTimeEquals(expected, cipherText.Slice(1, TagLength)))
            {
                throw Invalid();
            }

            EnsureCapacity(bodyLength);
            body.CopyTo(_input);
            _decryptor.TransformBlock(_input, 0, bodyLength, _output, 0);
            for (int i = 0; i < BlockLength; i++)
            {
                _output[i] ^= (byte)(iv[i] ^ _decryptChain[i]);
            }

            body[^BlockLength..].CopyTo(_decryptChain);
            int pad = _output[bodyLength - 1];
            bool padValid = pad is >= 1 and <= BlockLength && _output.AsSpan(bodyLength - pad, pad).IndexOfAnyExcept((byte)pad) < 0;
            int plainLength = bodyLength - pad;
            if (!padValid || destination.Length < plainLength)
            {
                CryptographicOperations.ZeroMemory(_output.AsSpan(0, bodyLength));
                throw padValid ? new ArgumentException("Destination too short.", nameof(destination)) : Invalid();
            }

            _output.AsSpan(0, plainLength).CopyTo(destination);
            CryptographicOperations.ZeroMemory(_output.AsSpan(0, bodyLength));
            return plainLength;
        }
    }

    protected override void Dispose(bool disposing)
    {
        lock (_lock)
        {
            if (!_disposed)
            {
                _disposed = true;
                _encryptor.Dispose();
                _decryptor.Dispose();
                _hmac.Dispose();
                _aes.Dispose();
            }
        }

        base.Dispose(disposing);
    }

    private static EncryptionException Invalid() => new(EncryptionErrorKind.InvalidCipherText, "The ciphertext is not valid for this key.");

    private void ComputeTag(ReadOnlySpan<byte> iv, ReadOnlySpan<byte> body, Span<byte> tag)
    {
        ReadOnlySpan<byte> version = [0x01];
        _hmac.AppendData(version);
        _hmac.AppendData(iv);
        _hmac.AppendData(body);
        _hmac.AppendData(version);
        _hmac.TryGetHashAndReset(tag, out _);
    }

    private void EnsureCapacity(int length)
    {
        if (_input.Length < length)
        {
            int size = Math.Max(length, _input.Length * 2);
            _input = new byte[size];
            _output = new byte[size];
        }
    }
}

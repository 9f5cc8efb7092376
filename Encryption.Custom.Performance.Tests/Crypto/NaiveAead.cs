using System.Security.Cryptography;

namespace Encryption.Custom.Performance.Tests.Crypto;

/// <summary>
/// The baseline: the same cell built per value with the framework one-shots (<see cref="Aes.EncryptCbc(ReadOnlySpan{byte}, ReadOnlySpan{byte}, Span{byte}, PaddingMode)"/>,
/// <see cref="HMACSHA256.HashData(ReadOnlySpan{byte}, ReadOnlySpan{byte}, Span{byte})"/>, <see cref="RandomNumberGenerator.Fill"/>).
/// It writes into caller buffers and a reused scratch array, so what it allocates is the framework's own cost.
/// </summary>
internal sealed class NaiveAead : IDisposable
{
    private readonly Aes _aes;
    private readonly byte[] _macKey;
    private readonly byte[] _macInput;

    public NaiveAead(byte[] encryptionKey, byte[] macKey, int maxPlainTextLength)
    {
        _aes = Aes.Create();
        _aes.Key = encryptionKey;
        _macKey = macKey;
        _macInput = new byte[maxPlainTextLength + 64];
    }

    public int Encrypt(ReadOnlySpan<byte> plainText, Span<byte> destination)
    {
        Span<byte> iv = destination.Slice(33, 16);
        RandomNumberGenerator.Fill(iv);
        int cipherLength = _aes.EncryptCbc(plainText, iv, destination[49..], PaddingMode.PKCS7);
        destination[0] = 0x01;
        HMACSHA256.HashData(_macKey, MacInput(destination.Slice(33, 16 + cipherLength)), destination.Slice(1, 32));
        return 49 + cipherLength;
    }

    public int Decrypt(ReadOnlySpan<byte> cell, Span<byte> destination)
    {
        if (cell.Length < 65 || (cell.Length - 49) % 16 != 0 || cell[0] != 0x01)
        {
            throw new CryptographicException();
        }

        Span<byte> tag = stackalloc byte[32];
        HMACSHA256.HashData(_macKey, MacInput(cell[33..]), tag);
        if (!CryptographicOperations.FixedTimeEquals(tag, cell.Slice(1, 32)))
        {
            throw new CryptographicException();
        }

        return _aes.DecryptCbc(cell[49..], cell.Slice(33, 16), destination, PaddingMode.PKCS7);
    }

    public void Dispose() => _aes.Dispose();

    private ReadOnlySpan<byte> MacInput(ReadOnlySpan<byte> ivAndCipherText)
    {
        _macInput[0] = 0x01;
        ivAndCipherText.CopyTo(_macInput.AsSpan(1));
        _macInput[ivAndCipherText.Length + 1] = 0x01;
        return _macInput.AsSpan(0, ivAndCipherText.Length + 2);
    }
}

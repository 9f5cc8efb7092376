using System.Security.Cryptography;
using System.Text;

namespace Encryption.Custom.Tests.Crypto;

/// <summary>
/// An independent, deliberately naive AEAD_AES_256_CBC_HMAC_SHA256 written from wire-format.md §1 with BCL one-shots
/// only, to cross-check the library in both directions. Shares no code with the library.
/// </summary>
internal static class ReferenceAead
{
    public static byte[] DeriveKey(byte[] rootKey, bool legacy, string purpose)
    {
        // The IV key is the library's own (wire-format.md, "Deterministic values"), the same for both label sets.
        string prefix = purpose == "IV" ? "Encryption.Custom deterministic" : legacy ? "Microsoft Azure Cosmos DB" : "Microsoft SQL Server cell";
        string label = $"{prefix} {purpose} key with encryption algorithm:AEAD_AES_256_CBC_HMAC_SHA256 and key length:256";
        return HMACSHA256.HashData(rootKey, Encoding.Unicode.GetBytes(label));
    }

    public static byte[] DeterministicIv(byte[] rootKey, byte[] context, byte[] plainText, bool legacy = false) =>
        HMACSHA256.HashData(DeriveKey(rootKey, legacy, "IV"), (byte[])[.. context, .. plainText])[..16];

    public static byte[] Encrypt(byte[] rootKey, byte[] plainText, byte[] iv, bool legacy = false)
    {
        using Aes aes = Aes.Create();
        aes.Key = DeriveKey(rootKey, legacy, "encryption");
        byte[] cipherText = aes.EncryptCbc(plainText, iv, PaddingMode.PKCS7);
        byte[] tag = HMACSHA256.HashData(DeriveKey(rootKey, legacy, "MAC"), (byte[])[0x01, .. iv, .. cipherText, 0x01]);
        return [0x01, .. tag, .. iv, .. cipherText];
    }

    /// <returns>The plaintext, or null when the cell is rejected.</returns>
    public static byte[]? Decrypt(byte[] rootKey, byte[] cell, bool legacy = false)
    {
        if (cell.Length < 65 || (cell.Length - 49) % 16 != 0 || cell[0] != 0x01)
        {
            return null;
        }

        byte[] iv = cell[33..49];
        byte[] cipherText = cell[49..];
        byte[] tag = HMACSHA256.HashData(DeriveKey(rootKey, legacy, "MAC"), (byte[])[0x01, .. iv, .. cipherText, 0x01]);
        if (!CryptographicOperations.FixedTimeEquals(tag, cell.AsSpan(1, 32)))
        {
            return null;
        }

        using Aes aes = Aes.Create();
        aes.Key = DeriveKey(rootKey, legacy, "encryption");
        return aes.DecryptCbc(cipherText, iv, PaddingMode.PKCS7);
    }
}

// The signed envelope in which Microsoft's Key Vault providers (Microsoft Data Encryption, Always Encrypted)
// store a wrapped key, metadata type "AZURE_KEY_VAULT", algorithm "RSA_OAEP":
//
//   0x01 ‖ keyPathLength (uint16 LE) ‖ cipherTextLength (uint16 LE) ‖ keyPath ‖ cipherText ‖ signature
//
// keyPath   = UTF-16LE of the lower-cased (invariant) key identifier used to wrap; informational only.
// cipherText = RSA-OAEP (SHA-1) of the raw key with the KEK, as long as the KEK's modulus.
// signature = RSASSA-PKCS1-v1_5 / SHA-256 by the KEK over everything before it, as long as the modulus.
using System.Buffers.Binary;
using System.Text;

namespace Encryption.Custom.AzureKeyVault;

/// <summary>Builds and splits the signed envelope.</summary>
internal static class KeyVaultSignedEnvelope
{
    public const byte Version = 0x01;
    private const int HeaderLength = 1 + 2 + 2;

    /// <summary>The signed part (everything but the signature) for a key path and an RSA-OAEP ciphertext.</summary>
    /// <exception cref="ArgumentException">The key path or ciphertext does not fit the 16-bit length fields.</exception>
    public static byte[] BuildSignedPart(string keyPath, ReadOnlySpan<byte> cipherText)
    {
        byte[] path = Encoding.Unicode.GetBytes(keyPath.ToLowerInvariant());
        if (path.Length > ushort.MaxValue || cipherText.Length > ushort.MaxValue)
        {
            throw new ArgumentException("The key path or the wrapped key is too long for the envelope.");
        }

        byte[] signedPart = new byte[HeaderLength + path.Length + cipherText.Length];
        signedPart[0] = Version;
        BinaryPrimitives.WriteUInt16LittleEndian(signedPart.AsSpan(1), (ushort)path.Length);
        BinaryPrimitives.WriteUInt16LittleEndian(signedPart.AsSpan(3), (ushort)cipherText.Length);
        path.CopyTo(signedPart, HeaderLength);
        cipherText.CopyTo(signedPart.AsSpan(HeaderLength + path.Length));
        return signedPart;
    }

    /// <summary>Splits an envelope made with a KEK of <paramref name="keySizeInBytes"/>; false when it is malformed.</summary>
    public static bool TrySplit(
        ReadOnlySpan<byte> envelope,
        int keySizeInBytes,
        out Range signedPart,
        out Range cipherText,
        out Range signature,
        out string problem)
    {
        signedPart = cipherText = signature = default;
        if (envelope.Length < HeaderLength || envelope[0] != Version)
        {
            problem = "it does not start with envelope version 1";
            return false;
        }

        int pathLength = BinaryPrimitives.ReadUInt16LittleEndian(envelope[1..]);
        int cipherTextLength = BinaryPrimitives.ReadUInt16LittleEndian(envelope[3..]);
        int cipherTextStart = HeaderLength + pathLength;
        int signatureStart = cipherTextStart + cipherTextLength;
        if (cipherTextLength != keySizeInBytes)
        {
            problem = $"its wrapped key is {cipherTextLength} bytes, not the key's {keySizeInBytes}";
            return false;
        }

        if (envelope.Length - signatureStart != keySizeInBytes)
        {
            problem = $"its signature is {envelope.Length - signatureStart} bytes, not the key's {keySizeInBytes}";
            return false;
        }

        signedPart = 0..signatureStart;
        cipherText = cipherTextStart..signatureStart;
        signature = signatureStart..;
        problem = string.Empty;
        return true;
    }
}

using System.Security.Cryptography;
using System.Text;

namespace Encryption.Custom.Tests.Keys.AzureKeyVault;

/// <summary>The signed envelope built straight from its published layout with a local copy of the KEK, as Microsoft's provider writes it.</summary>
internal static class SignedEnvelopeBuilder
{
    public static byte[] Build(RSA kek, string keyPath, byte[] dek, RSA? signer = null)
    {
        byte[] path = Encoding.Unicode.GetBytes(keyPath.ToLowerInvariant());
        byte[] cipherText = kek.Encrypt(dek, RSAEncryptionPadding.OaepSHA1);
        var signedPart = new List<byte> { 1 };
        signedPart.AddRange(BitConverter.GetBytes((ushort)path.Length));
        signedPart.AddRange(BitConverter.GetBytes((ushort)cipherText.Length));
        signedPart.AddRange(path);
        signedPart.AddRange(cipherText);
        byte[] signature = (signer ?? kek).SignData(signedPart.ToArray(), HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
        return [.. signedPart, .. signature];
    }

    /// <summary>
    /// What Microsoft's package does with a stored DEK document (it ignores type and algorithm): needs a non-blank
    /// "name", verifies the envelope's signature with the key the "value" names, then RSA-OAEP-decrypts with it.
    /// Returns the raw key, or throws as that package would refuse.
    /// </summary>
    public static byte[] ReadAsMicrosoftsPackage(System.Text.Json.Nodes.JsonObject document, Func<string, RSA> keyNamedBy)
    {
        var metadata = document["keyWrapMetadata"]!.AsObject();
        string name = metadata["name"]?.GetValue<string>() ?? throw new InvalidOperationException("no key-encryption key name");
        if (string.IsNullOrWhiteSpace(name))
        {
            throw new InvalidOperationException("blank key-encryption key name");
        }

        RSA kek = keyNamedBy(metadata["value"]!.GetValue<string>());
        byte[] envelope = Convert.FromBase64String(document["wrappedDataEncryptionKey"]!.GetValue<string>());
        int size = kek.KeySize / 8;
        int pathLength = BitConverter.ToUInt16(envelope, 1);
        int cipherTextLength = BitConverter.ToUInt16(envelope, 3);
        if (envelope[0] != 1 || cipherTextLength != size || envelope.Length != 5 + pathLength + cipherTextLength + size)
        {
            throw new InvalidOperationException("not a signed envelope");
        }

        int signatureStart = 5 + pathLength + cipherTextLength;
        if (!kek.VerifyData(envelope.AsSpan(0, signatureStart), envelope.AsSpan(signatureStart), HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1))
        {
            throw new InvalidOperationException("signature does not verify");
        }

        return kek.Decrypt(envelope.AsSpan(5 + pathLength, cipherTextLength).ToArray(), RSAEncryptionPadding.OaepSHA1);
    }
}

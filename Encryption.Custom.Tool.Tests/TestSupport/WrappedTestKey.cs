using System.Security.Cryptography;
using System.Text.Json;

namespace Encryption.Custom.Tool.Tests.TestSupport;

/// <summary>
/// A DEK wrapped by a local key-encryption key, as an operator meets it: the DEK document as the DEK container
/// stores it (written here by hand, in the stored shape) and the key-encryption key as a PEM or JWK file.
/// </summary>
internal sealed class WrappedTestKey
{
    public const string KekName = "ops-kek";

    private WrappedTestKey(TestKey key, string dekDocument, string kekFileContent)
    {
        Key = key;
        DekDocument = dekDocument;
        KekFileContent = kekFileContent;
    }

    /// <summary>The raw DEK (what the document was encrypted with).</summary>
    public TestKey Key { get; }

    /// <summary>The DEK document's JSON.</summary>
    public string DekDocument { get; }

    /// <summary>The key-encryption key file's content.</summary>
    public string KekFileContent { get; }

    /// <summary>A DEK wrapped with RSA-OAEP-256 by an RSA key in a PEM file.</summary>
    public static async Task<WrappedTestKey> WithRsaPemAsync(string dekId = TestDocuments.KeyId)
    {
        using RSA rsa = RSA.Create(2048);
        string pem = rsa.ExportPkcs8PrivateKeyPem();
        using var provider = new LocalKeyWrapProvider();
        provider.AddRsaPem(KekName, pem);
        return await WrapAsync(provider, KeyWrapAlgorithm.RsaOaep256, pem, dekId);
    }

    /// <summary>A DEK wrapped with AES-KW by an AES key in a JWK file (<c>"kty":"oct"</c>).</summary>
    public static async Task<WrappedTestKey> WithAesJwkAsync(string dekId = TestDocuments.KeyId)
    {
        byte[] aes = RandomNumberGenerator.GetBytes(32);
        string jwk = JsonSerializer.Serialize(new Dictionary<string, string> { ["kty"] = "oct", ["k"] = Base64Url(aes) });
        using var provider = new LocalKeyWrapProvider();
        provider.AddAesKey(KekName, aes);
        return await WrapAsync(provider, KeyWrapAlgorithm.AesKeyWrap, jwk, dekId);
    }

    private static async Task<WrappedTestKey> WrapAsync(LocalKeyWrapProvider provider, string algorithm, string kekFileContent, string dekId)
    {
        var key = TestKey.Random();
        EncryptionKeyWrapResult wrapped = await provider.WrapKeyAsync(
            Convert.FromHexString(key.Hex),
            LocalKeyWrapProvider.CreateMetadata(KekName, algorithm),
            TestContext.Current.CancellationToken);
        EncryptionKeyWrapMetadata metadata = wrapped.EncryptionKeyWrapMetadata;
        string document = JsonSerializer.Serialize(new Dictionary<string, object?>
        {
            ["id"] = dekId,
            ["encryptionAlgorithm"] = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized,
            ["wrappedDataEncryptionKey"] = Convert.ToBase64String(wrapped.WrappedDataEncryptionKey.Span),
            ["keyWrapMetadata"] = new Dictionary<string, string?>
            {
                ["type"] = metadata.Type,
                ["name"] = metadata.Name,
                ["value"] = metadata.Value,
                ["algorithm"] = metadata.Algorithm,
            },
            ["createTime"] = 1_700_000_000,
            ["_etag"] = "\"00000000-0000-0000-0000-000000000000\"",
            ["_ts"] = 1_700_000_000,
        });
        return new WrappedTestKey(key, document, kekFileContent);
    }

    private static string Base64Url(byte[] bytes) => Convert.ToBase64String(bytes).TrimEnd('=').Replace('+', '-').Replace('/', '_');
}

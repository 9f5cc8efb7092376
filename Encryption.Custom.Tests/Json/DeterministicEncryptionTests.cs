using System.Text.Json;
using Encryption.Custom.Cosmos.Processing;
using Encryption.Custom.Json;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary>Deterministic paths through both processors: equal within a path, different across paths, readable by every reader.</summary>
public sealed class DeterministicEncryptionTests
{
    private static readonly string[] s_paths = ["/ssn", "/taxId", "/age", "/score", "/active", "/notes"];
    private static readonly string[] s_deterministic = ["/ssn", "/taxId", "/age", "/score", "/active"];

    private static EncryptionOptions Options() =>
        new() { DataEncryptionKeyId = "dek", PathsToEncrypt = s_paths, DeterministicPaths = s_deterministic };

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_SameValueTwice_GivesEqualCiphertextPerPathAndDifferentAcrossPaths(JsonProcessor kind)
    {
        using DataEncryptionKey key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        const string Document = "{\"id\":\"a\",\"ssn\":\"078-05-1120\",\"taxId\":\"078-05-1120\",\"age\":42,\"score\":-2.5,\"active\":true,\"notes\":\"x\"}";

        using JsonDocument first = JsonDocument.Parse(Processors.Create(kind).Encrypt(Document, key, Options()));
        using JsonDocument second = JsonDocument.Parse(Processors.Create(kind).Encrypt(Document, key, Options()));

        foreach (string path in s_deterministic)
        {
            Assert.Equal(first.RootElement.GetProperty(path[1..]).GetString(), second.RootElement.GetProperty(path[1..]).GetString());
        }

        Assert.NotEqual(first.RootElement.GetProperty("ssn").GetString(), first.RootElement.GetProperty("taxId").GetString());
        Assert.NotEqual(first.RootElement.GetProperty("notes").GetString(), second.RootElement.GetProperty("notes").GetString());
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_DeterministicDocument_IsReadByBothProcessorsAndTheReferenceKey(JsonProcessor writer)
    {
        byte[] root = System.Security.Cryptography.RandomNumberGenerator.GetBytes(32);
        using DataEncryptionKey key = DataEncryptionKey.Create(root.ToArray(), CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        using var reference = new ReferenceDataEncryptionKey(root);
        const string Document = "{\"id\":\"a\",\"ssn\":\"078-05-1120\",\"taxId\":\"078-05-1120\",\"age\":42,\"score\":-2.5,\"active\":true,\"notes\":\"x\"}";
        byte[] encrypted = Processors.Create(writer).Encrypt(Document, key, Options());

        foreach (JsonProcessor reader in new[] { JsonProcessor.Stream, JsonProcessor.Newtonsoft })
        {
            byte[] decrypted = Processors.Create(reader).Decrypt(encrypted, new TestEncryptor().Add("dek", reference));
            JsonAssert.Equivalent(System.Text.Encoding.UTF8.GetBytes(Document), decrypted);
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_ObjectOrArrayOnDeterministicPath_IsRefusedNamingThePath(JsonProcessor kind)
    {
        using DataEncryptionKey key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);

        var objectError = Assert.Throws<EncryptionException>(() => Processors.Create(kind).Encrypt("{\"id\":\"a\",\"ssn\":{\"x\":1}}", key, Options()));
        var arrayError = Assert.Throws<EncryptionException>(() => Processors.Create(kind).Encrypt("{\"id\":\"a\",\"age\":[1]}", key, Options()));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, objectError.Kind);
        Assert.Equal("/ssn", objectError.Path);
        Assert.Equal("/age", arrayError.Path);
        Assert.Contains("deterministically", objectError.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Policy_DeterministicPath_ReachesTheWriteOptions_AlsoForMicrosoftStyleRequests()
    {
        var policy = new ContainerEncryptionPolicy("dek", [new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic }, new EncryptionPolicyIncludedPath("/notes")]);
        var resolver = new WriteOptionsResolver(policy);

        EncryptionPlan byPolicy = resolver.Resolve(null)!.GetPlan();
        EncryptionPlan byRequest = resolver.Resolve(new EncryptionOptions { DataEncryptionKeyId = "dek", PathsToEncrypt = ["/notes", "/ssn", "/extra"] })!.GetPlan();

        Assert.True(byPolicy.IsDeterministic(byPolicy.FindPath("ssn"u8)));
        Assert.False(byPolicy.IsDeterministic(byPolicy.FindPath("notes"u8)));
        Assert.True(byRequest.IsDeterministic(byRequest.FindPath("ssn"u8)));
        Assert.False(byRequest.IsDeterministic(byRequest.FindPath("extra"u8)));
    }
}

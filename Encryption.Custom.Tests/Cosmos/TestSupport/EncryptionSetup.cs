using System.Text;
using Encryption.Custom.Cosmos;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Keys;
using Encryption.Custom.Tests.TestSupport;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Cosmos.TestSupport;

/// <summary>A fake container, an encryptor with two keys, and the encryption container over them.</summary>
public sealed class EncryptionSetup : IDisposable
{
    public const string Dek1 = "dek1";
    public const string Dek2 = "dek2";

    private readonly DataEncryptionKey _key1 = TestKeys.Create(TestKeyKind.Protected);
    private readonly DataEncryptionKey _key2 = TestKeys.Create(TestKeyKind.Protected);

    public EncryptionSetup(EncryptionContainerOptions? options = null, string partitionKeyPath = "/pk")
    {
        Inner = new FakeContainer(partitionKeyPath: partitionKeyPath);
        Encryptor = new TestEncryptor().Add(Dek1, _key1).Add(Dek2, _key2);
        Container = Inner.WithEncryptor(Encryptor, options);
    }

    public FakeContainer Inner { get; }

    public TestEncryptor Encryptor { get; }

    public Container Container { get; }

    public static PartitionKey P0 => new("p0");

    public static EncryptionOptions Options(string dek, params string[] paths) => new() { DataEncryptionKeyId = dek, PathsToEncrypt = paths };

    public static EncryptionItemRequestOptions Encrypt(string dek, params string[] paths) => new() { EncryptionOptions = Options(dek, paths) };

    public static MemoryStream ToStream(string json) => new(Encoding.UTF8.GetBytes(json));

    public static JObject ReadJson(Stream stream)
    {
        using var reader = new StreamReader(stream, Encoding.UTF8, leaveOpen: true);
        return JObject.Parse(reader.ReadToEnd());
    }

    /// <summary>Writes an encrypted document through the encryption container.</summary>
    public async Task<JObject> CreateEncryptedAsync(string json, string dek, params string[] paths)
    {
        using ResponseMessage response = await Container.CreateItemStreamAsync(ToStream(json), P0, Encrypt(dek, paths), TestContext.Current.CancellationToken);
        response.EnsureSuccessStatusCode();
        return ReadJson(response.Content);
    }

    /// <summary>Reads and decrypts a document through the encryption container.</summary>
    public async Task<JObject> ReadDecryptedAsync(string id)
    {
        using ResponseMessage response = await Container.ReadItemStreamAsync(id, P0, cancellationToken: TestContext.Current.CancellationToken);
        response.EnsureSuccessStatusCode();
        return ReadJson(response.Content);
    }

    public void Dispose()
    {
        _key1.Dispose();
        _key2.Dispose();
    }
}

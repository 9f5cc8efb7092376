using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>What the copy tests share: both containers read back decrypted through their own policies and compared.</summary>
internal static class CopyScenario
{
    private static readonly string[] s_systemProperties = ["_rid", "_self", "_etag", "_attachments", "_ts", "_lsn"];

    /// <summary>Every document of <paramref name="container"/> read through <paramref name="policy"/> (decrypted), system properties removed, by id.</summary>
    public static async Task<Dictionary<string, JObject>> ReadPlaintextAsync(Container container, Encryptor encryptor, ContainerEncryptionPolicy? policy, CancellationToken cancellationToken)
    {
        Container view = container.WithEncryptor(encryptor, new EncryptionContainerOptions { Policy = policy });
        Dictionary<string, JObject> documents = await MigrationScenario.ReadDecryptedAsync(view, cancellationToken);
        foreach (JObject document in documents.Values)
        {
            foreach (string name in s_systemProperties)
            {
                document.Remove(name);
            }
        }

        return documents;
    }

    /// <summary>The target decrypts to exactly the source's plaintext: same ids, and each document equal as JSON.</summary>
    public static async Task AssertTargetEqualsSourceAsync(
        Container source, ContainerEncryptionPolicy? sourcePolicy, Container target, ContainerEncryptionPolicy? targetPolicy, Encryptor encryptor, CancellationToken cancellationToken)
    {
        Dictionary<string, JObject> expected = await ReadPlaintextAsync(source, encryptor, sourcePolicy, cancellationToken);
        Dictionary<string, JObject> actual = await ReadPlaintextAsync(target, encryptor, targetPolicy, cancellationToken);
        Assert.Equal(expected.Keys.Order(StringComparer.Ordinal), actual.Keys.Order(StringComparer.Ordinal));
        foreach ((string id, JObject document) in expected)
        {
            Assert.True(JToken.DeepEquals(document, actual[id]), $"Document {id} differs in the target.");
        }
    }
}

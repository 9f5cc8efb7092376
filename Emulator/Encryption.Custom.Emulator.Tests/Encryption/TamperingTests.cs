using Encryption.Custom.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>A writer with database access but no key changes stored documents: reads fail with EncryptionException, never with plaintext.</summary>
public sealed class TamperingTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private async Task<(Container Raw, Container Encrypted, SecretDocument Document, JObject Stored)> CreateAsync()
    {
        (Container raw, Container container) = await fixture.GetSharedContainerAsync(Ct);
        SecretDocument document = SecretDocument.Create();
        await container.CreateItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek1, SecretDocument.SecretPaths), Ct);
        return (raw, container, document, await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct));
    }

    private static async Task StoreAsync(Container raw, JObject stored, SecretDocument document)
    {
        using var body = PointOperationTests.ToStream(stored.ToString(Newtonsoft.Json.Formatting.None));
        using ResponseMessage response = await raw.ReplaceItemStreamAsync(body, document.Id, document.PartitionKey, cancellationToken: Ct);
        response.EnsureSuccessStatusCode();
    }

    [Theory]
    [InlineData("ssn")]
    [InlineData("salary")]
    [InlineData("address")]
    public async Task FlippedCiphertext_ThrowsInvalidCipherTextNamingKeyAndPath(string property)
    {
        (Container raw, Container container, SecretDocument document, JObject stored) = await CreateAsync();
        await QueryTests.TamperAsync(raw, document, property);

        EncryptionException typed = await Assert.ThrowsAsync<EncryptionException>(() => container.ReadItemAsync<SecretDocument>(document.Id, document.PartitionKey, cancellationToken: Ct));
        EncryptionException stream = await Assert.ThrowsAsync<EncryptionException>(() => container.ReadItemStreamAsync(document.Id, document.PartitionKey, cancellationToken: Ct));

        foreach (EncryptionException error in new[] { typed, stream })
        {
            Assert.Equal(EncryptionErrorKind.InvalidCipherText, error.Kind);
            Assert.Equal("/" + property, error.Path);
            Assert.Equal(EncryptionFixture.Dek1, error.DataEncryptionKeyId);
            Assert.DoesNotContain(document.Ssn, error.ToString(), StringComparison.Ordinal);
            Assert.DoesNotContain(((string)stored[property]!)[..12], error.ToString(), StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task SwappedKeyId_FailsAuthentication()
    {
        (Container raw, Container container, SecretDocument document, JObject stored) = await CreateAsync();
        stored["_ei"]!["_en"] = EncryptionFixture.Dek2;
        await StoreAsync(raw, stored, document);

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => container.ReadItemAsync<SecretDocument>(document.Id, document.PartitionKey, cancellationToken: Ct));

        Assert.Equal(EncryptionErrorKind.InvalidCipherText, error.Kind);
        Assert.Equal(EncryptionFixture.Dek2, error.DataEncryptionKeyId);
    }

    [Fact]
    public async Task UnknownFormatVersion_ThrowsUnsupportedFormat()
    {
        (Container raw, Container container, SecretDocument document, JObject stored) = await CreateAsync();
        stored["_ei"]!["_ef"] = 9;
        await StoreAsync(raw, stored, document);

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => container.ReadItemStreamAsync(document.Id, document.PartitionKey, cancellationToken: Ct));

        Assert.Equal(EncryptionErrorKind.UnsupportedFormat, error.Kind);
    }

    [Fact]
    public async Task EncryptedValueReplacedByPlaintext_IsRefused()
    {
        (Container raw, Container container, SecretDocument document, JObject stored) = await CreateAsync();
        stored["salary"] = 5;
        await StoreAsync(raw, stored, document);

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => container.ReadItemStreamAsync(document.Id, document.PartitionKey, cancellationToken: Ct));

        Assert.Equal("/salary", error.Path);
    }

    [Fact]
    public async Task UnknownKey_ThrowsKeyUnavailable()
    {
        (Container raw, Container container, SecretDocument document, JObject stored) = await CreateAsync();
        stored["_ei"]!["_en"] = "deleted-dek";
        await StoreAsync(raw, stored, document);

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => container.ReadItemAsync<DecryptableItem>(document.Id, document.PartitionKey, cancellationToken: Ct)
            .ContinueWith(t => t.Result.Resource.GetItemAsync<SecretDocument>(Ct), Ct, TaskContinuationOptions.None, TaskScheduler.Default).Unwrap());

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Equal("deleted-dek", error.DataEncryptionKeyId);
    }
}

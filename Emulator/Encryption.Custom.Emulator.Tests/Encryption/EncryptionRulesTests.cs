using Encryption.Custom.Cosmos;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>What encryption refuses before anything is sent: the partition key, <c>/id</c>, writes without a partition key.</summary>
public sealed class EncryptionRulesTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Write_EncryptingThePartitionKeyPath_IsRejectedAndNothingIsStored()
    {
        (Container raw, Container container) = await fixture.GetSharedContainerAsync(Ct);
        SecretDocument document = SecretDocument.Create();

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() =>
            container.CreateItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek1, "/ssn", "/pk"), Ct));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Equal("/pk", error.Path);
        Assert.Equal(EncryptionFixture.Dek1, error.DataEncryptionKeyId);
        using ResponseMessage read = await raw.ReadItemStreamAsync(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.NotFound, read.StatusCode);
    }

    [Fact]
    public async Task Write_EncryptingThePropertyThatHoldsANestedPartitionKey_IsRejected()
    {
        (_, Container container) = await fixture.CreateContainerAsync("/tenant/id", cancellationToken: Ct);
        string json = """{"id":"n1","tenant":{"id":"t1"},"ssn":"x"}""";

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() =>
            container.CreateItemStreamAsync(PointOperationTests.ToStream(json), new PartitionKey("t1"), EncryptionFixture.Encrypt(EncryptionFixture.Dek1, "/tenant"), Ct));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Equal("/tenant", error.Path);
    }

    [Fact]
    public async Task Write_EncryptingTheId_IsRejectedBeforeSending()
    {
        (Container raw, Container container) = await fixture.GetSharedContainerAsync(Ct);
        SecretDocument document = SecretDocument.Create();

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() =>
            container.UpsertItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek1, "/id"), Ct));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Equal("/id", error.Path);
        using ResponseMessage read = await raw.ReadItemStreamAsync(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.NotFound, read.StatusCode);
    }

    [Fact]
    public async Task TypedWrite_WithEncryptionButNoPartitionKey_IsRejected()
    {
        (_, Container container) = await fixture.GetSharedContainerAsync(Ct);
        SecretDocument document = SecretDocument.Create();

        ArgumentNullException error = await Assert.ThrowsAsync<ArgumentNullException>(() =>
            container.CreateItemAsync(document, partitionKey: null, EncryptionFixture.Encrypt(EncryptionFixture.Dek1, "/ssn"), Ct));

        Assert.Equal("partitionKey", error.ParamName);
    }

    [Fact]
    public async Task Write_WithUnknownDek_FailsWithKeyUnavailableAndStoresNothing()
    {
        (Container raw, Container container) = await fixture.GetSharedContainerAsync(Ct);
        SecretDocument document = SecretDocument.Create();

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() =>
            container.CreateItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt("no-such-dek", "/ssn"), Ct));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Equal("no-such-dek", error.DataEncryptionKeyId);
        using ResponseMessage read = await raw.ReadItemStreamAsync(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.NotFound, read.StatusCode);
    }

    [Fact]
    public async Task Write_DocumentThatIsAlreadyEncrypted_IsRejected()
    {
        (_, Container container) = await fixture.GetSharedContainerAsync(Ct);
        string json = """{"id":"already","pk":"p0","ssn":"x","_ei":{"_ef":3,"_en":"dek1","_ea":"MdeAeadAes256CbcHmac256Randomized","_ep":[]}}""";

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() =>
            container.CreateItemStreamAsync(PointOperationTests.ToStream(json), new PartitionKey("p0"), EncryptionFixture.Encrypt(EncryptionFixture.Dek1, "/ssn"), Ct));

        Assert.Equal(EncryptionErrorKind.MalformedDocument, error.Kind);
    }

    [Fact]
    public void WithEncryptor_NullArguments_Throw()
    {
        Container container = fixture.Client.GetContainer("db", "c");

        Assert.Throws<ArgumentNullException>(() => container.WithEncryptor(null!));
        Assert.Throws<ArgumentNullException>(() => ((Container)null!).WithEncryptor(fixture.Encryptor));
    }
}

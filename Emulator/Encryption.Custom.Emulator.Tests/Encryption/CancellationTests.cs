using Encryption.Custom.Cosmos;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>Cancellation stops operations before anything partial is stored or returned.</summary>
public sealed class CancellationTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Write_AlreadyCancelled_ThrowsAndStoresNothing()
    {
        (Container raw, Container container) = await fixture.GetSharedContainerAsync(Ct);
        SecretDocument document = SecretDocument.Create();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() =>
            container.CreateItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek1, "/ssn"), new CancellationToken(canceled: true)));

        using ResponseMessage read = await raw.ReadItemStreamAsync(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.NotFound, read.StatusCode);
    }

    [Fact]
    public async Task Write_CancelledWhileTheKeyIsFetched_ThrowsAndStoresNothing()
    {
        (Container raw, _) = await fixture.GetSharedContainerAsync(Ct);
        var encryptor = new StalledEncryptor();
        Container container = raw.WithEncryptor(encryptor);
        SecretDocument document = SecretDocument.Create();
        using var cancellation = CancellationTokenSource.CreateLinkedTokenSource(Ct);

        Task<ItemResponse<SecretDocument>> write = container.CreateItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek1, "/ssn"), cancellation.Token);
        await encryptor.Entered.Task.WaitAsync(Ct);
        await cancellation.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => write);
        using ResponseMessage read = await raw.ReadItemStreamAsync(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.NotFound, read.StatusCode);
    }

    [Fact]
    public async Task Read_CancelledWhileTheKeyIsFetched_Throws()
    {
        (Container raw, Container container) = await fixture.GetSharedContainerAsync(Ct);
        SecretDocument document = SecretDocument.Create();
        await container.CreateItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek1, "/ssn"), Ct);
        var encryptor = new StalledEncryptor();
        Container stalled = raw.WithEncryptor(encryptor);
        using var cancellation = CancellationTokenSource.CreateLinkedTokenSource(Ct);

        Task<ItemResponse<SecretDocument>> read = stalled.ReadItemAsync<SecretDocument>(document.Id, document.PartitionKey, cancellationToken: cancellation.Token);
        await encryptor.Entered.Task.WaitAsync(Ct);
        await cancellation.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => read);
    }

    [Fact]
    public async Task Query_CancelledWhileTheKeyIsFetched_Throws()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        SecretDocument document = SecretDocument.Create();
        await container.CreateItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek1, "/ssn"), Ct);
        var encryptor = new StalledEncryptor();
        using var cancellation = CancellationTokenSource.CreateLinkedTokenSource(Ct);
        using FeedIterator<SecretDocument> iterator = raw.WithEncryptor(encryptor).GetItemQueryIterator<SecretDocument>("SELECT * FROM c");

        Task<FeedResponse<SecretDocument>> page = iterator.ReadNextAsync(cancellation.Token);
        await encryptor.Entered.Task.WaitAsync(Ct);
        await cancellation.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => page);
    }

    /// <summary>Never answers a key lookup until the caller cancels it.</summary>
    private sealed class StalledEncryptor : Encryptor
    {
        public TaskCompletionSource Entered { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public override async ValueTask<DataEncryptionKey> GetEncryptionKeyAsync(string dataEncryptionKeyId, string encryptionAlgorithm, CancellationToken cancellationToken = default)
        {
            Entered.TrySetResult();
            await Task.Delay(Timeout.Infinite, cancellationToken);
            throw new InvalidOperationException("unreachable");
        }
    }
}

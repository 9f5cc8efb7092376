using System.Collections.Concurrent;
using Encryption.Custom.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>The change feed processor through an encryption container: every handler variant receives decrypted documents.</summary>
[SdkSmoke]
public sealed class ChangeFeedProcessorTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static readonly TimeSpan s_wait = TimeSpan.FromSeconds(60);

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private async Task<(Container Encrypted, Container Leases, List<SecretDocument> Documents)> SeedAsync()
    {
        (_, Container container) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        var documents = new List<SecretDocument>();
        for (int i = 0; i < 4; i++)
        {
            SecretDocument document = SecretDocument.Create($"p{i % 2}") with { Ssn = $"cfp-{i}" };
            await container.CreateItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek1, SecretDocument.SecretPaths), Ct);
            documents.Add(document);
        }

        return (container, leases, documents);
    }

    private static async Task RunUntilAsync(ChangeFeedProcessorBuilder builder, Container leases, Func<bool> done)
    {
        ChangeFeedProcessor processor = builder
            .WithInstanceName("test")
            .WithLeaseContainer(leases)
            .WithStartTime(DateTime.MinValue.ToUniversalTime())
            .WithPollInterval(TimeSpan.FromMilliseconds(200))
            .Build();
        await processor.StartAsync();
        try
        {
            using var timeout = CancellationTokenSource.CreateLinkedTokenSource(Ct);
            timeout.CancelAfter(s_wait);
            while (!done())
            {
                await Task.Delay(100, timeout.Token);
            }
        }
        finally
        {
            await processor.StopAsync();
        }
    }

    private static void AssertAll(List<SecretDocument> documents, IEnumerable<SecretDocument> received)
    {
        Dictionary<string, SecretDocument> byId = received.GroupBy(d => d.Id).ToDictionary(g => g.Key, g => g.Last());
        Assert.Equal(documents.Count, byId.Count);
        Assert.All(documents, d => Assert.True(d.ValueEquals(byId[d.Id])));
    }

    [Fact]
    public async Task Processor_ChangesHandler_ReceivesDecryptedDocuments()
    {
        (Container container, Container leases, List<SecretDocument> documents) = await SeedAsync();
        var received = new ConcurrentQueue<SecretDocument>();

        ChangeFeedProcessorBuilder builder = container.GetChangeFeedProcessorBuilder<SecretDocument>("changes", (changes, _) =>
        {
            foreach (SecretDocument change in changes)
            {
                received.Enqueue(change);
            }

            return Task.CompletedTask;
        });
        await RunUntilAsync(builder, leases, () => received.Select(d => d.Id).Distinct().Count() >= documents.Count);

        AssertAll(documents, received);
    }

    [Fact]
    public async Task Processor_ChangeFeedHandlerWithContext_ReceivesDecryptedDocuments()
    {
        (Container container, Container leases, List<SecretDocument> documents) = await SeedAsync();
        var received = new ConcurrentQueue<SecretDocument>();
        var leaseTokens = new ConcurrentBag<string>();

        ChangeFeedProcessorBuilder builder = container.GetChangeFeedProcessorBuilder<SecretDocument>("context", (ChangeFeedProcessorContext context, IReadOnlyCollection<SecretDocument> changes, CancellationToken _) =>
        {
            leaseTokens.Add(context.LeaseToken);
            foreach (SecretDocument change in changes)
            {
                received.Enqueue(change);
            }

            return Task.CompletedTask;
        });
        await RunUntilAsync(builder, leases, () => received.Select(d => d.Id).Distinct().Count() >= documents.Count);

        AssertAll(documents, received);
        Assert.NotEmpty(leaseTokens);
    }

    [Fact]
    public async Task Processor_StreamHandler_ReceivesDecryptedPages()
    {
        (Container container, Container leases, List<SecretDocument> documents) = await SeedAsync();
        var received = new ConcurrentQueue<JObject>();

        ChangeFeedProcessorBuilder builder = container.GetChangeFeedProcessorBuilder("stream", async (ChangeFeedProcessorContext _, Stream changes, CancellationToken cancellationToken) =>
        {
            using var reader = new StreamReader(changes, leaveOpen: true);
            JObject page = JObject.Parse(await reader.ReadToEndAsync(cancellationToken));
            foreach (JObject document in page["Documents"]!.Children<JObject>())
            {
                received.Enqueue(document);
            }
        });
        await RunUntilAsync(builder, leases, () => received.Select(d => (string)d["id"]!).Distinct().Count() >= documents.Count);

        Assert.All(received, d => Assert.Null(d["_ei"]));
        Assert.Equal(documents.Select(d => d.Ssn).Order(), received.GroupBy(d => (string)d["id"]!).Select(g => (string)g.Last()["ssn"]!).Order());
    }

    [Fact]
    public async Task Processor_ManualCheckpointHandlers_ReceiveDecryptedDocuments()
    {
        (Container container, Container leases, List<SecretDocument> documents) = await SeedAsync();
        var typed = new ConcurrentQueue<SecretDocument>();
        var streamed = new ConcurrentQueue<string>();

        ChangeFeedProcessorBuilder typedBuilder = container.GetChangeFeedProcessorBuilderWithManualCheckpoint<SecretDocument>("manual", async (_, changes, checkpointAsync, _) =>
        {
            foreach (SecretDocument change in changes)
            {
                typed.Enqueue(change);
            }

            await checkpointAsync();
        });
        await RunUntilAsync(typedBuilder, leases, () => typed.Select(d => d.Id).Distinct().Count() >= documents.Count);

        ChangeFeedProcessorBuilder streamBuilder = container.GetChangeFeedProcessorBuilderWithManualCheckpoint("manual-stream", async (_, changes, checkpointAsync, cancellationToken) =>
        {
            using var reader = new StreamReader(changes, leaveOpen: true);
            foreach (JToken document in JObject.Parse(await reader.ReadToEndAsync(cancellationToken))["Documents"]!)
            {
                streamed.Enqueue((string)document["ssn"]!);
            }

            await checkpointAsync();
        });
        await RunUntilAsync(streamBuilder, leases, () => streamed.Distinct().Count() >= documents.Count);

        AssertAll(documents, typed);
        Assert.Equal(documents.Select(d => d.Ssn).Order(), streamed.Distinct().Order());
    }

    [Fact]
    public async Task Processor_DecryptableItems_ReceiveEncryptedDocumentsToDecrypt()
    {
        (Container container, Container leases, List<SecretDocument> documents) = await SeedAsync();
        var received = new ConcurrentQueue<SecretDocument>();

        ChangeFeedProcessorBuilder builder = container.GetChangeFeedProcessorBuilder<DecryptableItem>("decryptable", async (changes, cancellationToken) =>
        {
            foreach (DecryptableItem change in changes)
            {
                (SecretDocument document, _) = await change.GetItemAsync<SecretDocument>(cancellationToken);
                received.Enqueue(document);
            }
        });
        await RunUntilAsync(builder, leases, () => received.Select(d => d.Id).Distinct().Count() >= documents.Count);

        AssertAll(documents, received);
    }
}

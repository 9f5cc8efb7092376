using System.Collections.Concurrent;
using Encryption.Custom.Emulator.Tests.Encryption;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// <see cref="EncryptionMigrationJob"/> end to end: the real SDK's change feed processor with a real lease container
/// on the endpoint, documents written by the SDK, the results read back as stored.
/// </summary>
public sealed class MigrationJobTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static ContainerEncryptionPolicy Policy(string dek, PlaintextPolicy mode = PlaintextPolicy.WriteEncryptedForbidPlaintext) =>
        new(dek, Paths) { PlaintextPolicy = mode };

    private async Task<(Container Raw, Container Leases)> ContainersAsync()
    {
        (Container raw, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        return (raw, leases);
    }

    [Fact]
    public async Task PlaintextToEncrypted_WhileAWriterUpdates_EveryDocumentEncryptedAndNoUpdateLost()
    {
        (Container raw, Container leases) = await ContainersAsync();
        await MigrateWhileAWriterUpdatesAsync(raw, raw, leases, Documents, Options());
    }

    [Fact]
    public async Task BulkExecution_WhileAWriterUpdates_RewritesThroughBulkRequestsAndLosesNoUpdate()
    {
        var batches = new BatchRequestCounter();
        using CosmosClient bulkClient = fixture.Endpoint.CreateClient(options =>
        {
            options.AllowBulkExecution = true;
            options.CustomHandlers.Add(batches);
        });
        (Container raw, Container leases) = await ContainersAsync();
        Container bulk = bulkClient.GetContainer(fixture.Database.Id, raw.Id);
        EncryptionMigrationOptions options = Options();
        options.UseBulkExecution = true;

        await MigrateWhileAWriterUpdatesAsync(raw, bulk, leases, SmallDocuments, options);

        // The SDK grouped the job's conditional replaces into batch requests (If-Match travels per operation).
        Assert.True(batches.Count > 0, "The job's rewrites did not go through bulk requests.");
    }

    // Seeds plaintext documents through raw, migrates them to DEK1 through migrated (the container the job is given)
    // while a writer (through raw, encrypting by the rollout's policy) updates random documents, then checks that
    // every document is encrypted under DEK1 and holds its last write.
    private async Task MigrateWhileAWriterUpdatesAsync(Container raw, Container migrated, Container leases, int count, EncryptionMigrationOptions options)
    {
        await SeedAsync(raw, count, Ct);

        // The rollout's state during the migration: writers encrypt, readers accept both.
        ContainerEncryptionPolicy policy = Policy(EncryptionFixture.Dek1, PlaintextPolicy.WriteEncryptedReadBoth);
        Container writerView = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = policy });
        var lastSsn = new ConcurrentDictionary<string, string>();
        using var stopWriter = CancellationTokenSource.CreateLinkedTokenSource(Ct);
        long writes = 0;
        Task writer = Task.Run(async () =>
        {
            var random = new Random(17);
            var versions = new int[count];
            while (!stopWriter.IsCancellationRequested)
            {
                int i = random.Next(count);
                JObject document = Document(i, ++versions[i]);
                await writerView.UpsertItemAsync(document, PartitionKeyOf(document), cancellationToken: Ct);
                lastSsn[DocumentId(i)] = (string)document["ssn"]!;
                Interlocked.Increment(ref writes);
            }
        }, Ct);

        // The writer keeps going until the job has seen half the documents (and for at least a few writes).
        var progress = new InlineProgress(p =>
        {
            if (p.DocumentsSeen >= count / 2 && Interlocked.Read(ref writes) > 20)
            {
                stopWriter.Cancel();
            }
        });
        await using var job = new EncryptionMigrationJob(migrated, fixture.Encryptor, Policy(EncryptionFixture.Dek1), leases, options);
        EncryptionMigrationResult result = await RunAsync(job, Ct, progress);
        await stopWriter.CancelAsync();
        await writer;

        Assert.True(result.Completed);
        Assert.Empty(result.Failures);
        Assert.True(Interlocked.Read(ref writes) > 0);
        Dictionary<string, JObject> stored = await ReadStoredAsync(raw, Ct);
        Assert.Equal(count, stored.Count);
        Assert.All(stored.Values, d => Assert.Equal(EncryptionFixture.Dek1, KeyId(d)));

        // Reading under the final policy (plaintext forbidden) works for every document, each with its last write.
        Container reader = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = Policy(EncryptionFixture.Dek1) });
        Dictionary<string, JObject> read = await ReadDecryptedAsync(reader, Ct);
        for (int i = 0; i < count; i++)
        {
            string id = DocumentId(i);
            Assert.Equal(lastSsn.GetValueOrDefault(id, Ssn(i, 0)), (string)read[id]["ssn"]!);
        }

        EncryptionMigrationStatus status = await EncryptionMigrationJob.GetStatusAsync(raw, Policy(EncryptionFixture.Dek1), Ct);
        Assert.Equal(count, status.DocumentsInTargetState);
        Assert.Equal(0, status.PlaintextDocuments);
        Assert.Equal(count, status.DocumentsByDataEncryptionKeyId[EncryptionFixture.Dek1]);
    }

    [Fact]
    public async Task Rotation_Dek1ToDek2_StatusShowsNothingOnDek1_AndDocumentsReadWithOnlyDek2Accepted()
    {
        int count = Documents;
        (Container raw, Container leases) = await ContainersAsync();
        Container dek1Writer = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = Policy(EncryptionFixture.Dek1) });
        await SeedAsync(dek1Writer, count, Ct);
        EncryptionMigrationStatus before = await EncryptionMigrationJob.GetStatusAsync(raw, Policy(EncryptionFixture.Dek2), Ct);
        Assert.Equal(count, before.DocumentsByDataEncryptionKeyId[EncryptionFixture.Dek1]);
        Assert.Equal(count, before.DocumentsOutsideTargetState);

        await using var job = new EncryptionMigrationJob(raw, fixture.Encryptor, Policy(EncryptionFixture.Dek2), leases, Accepting(Options(), EncryptionFixture.Dek1));
        EncryptionMigrationResult result = await RunAsync(job, Ct);

        Assert.True(result.Completed);
        Assert.Equal(count, result.Progress.DocumentsRewritten);
        EncryptionMigrationStatus after = await EncryptionMigrationJob.GetStatusAsync(raw, Policy(EncryptionFixture.Dek2), Ct);
        Assert.Equal(0, after.DocumentsByDataEncryptionKeyId.GetValueOrDefault(EncryptionFixture.Dek1));
        Assert.Equal(count, after.DocumentsByDataEncryptionKeyId[EncryptionFixture.Dek2]);
        Assert.Equal(0, after.DocumentsOutsideTargetState);

        // A policy that accepts only DEK2 refuses any DEK1 document before loading a key: every read succeeds.
        Container dek2Only = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = Policy(EncryptionFixture.Dek2) });
        Dictionary<string, JObject> read = await ReadDecryptedAsync(dek2Only, Ct);
        Assert.Equal(count, read.Count);
        Assert.All(Enumerable.Range(0, count), i => Assert.Equal(Ssn(i, 0), (string)read[DocumentId(i)]["ssn"]!));
    }

    // In the SDK smoke set: the job drives the SDK's change feed processor, its leases and checkpoints (released on a
    // stop, resumed by another instance) and its estimator, whose lag says when to verify: the SDK's behaviour, which
    // may change by version.
    [Fact]
    [SdkSmoke]
    public async Task Cancelled_Halfway_ThenRestarted_FinishesWithoutRewritingAnyDocumentTwice()
    {
        int count = SmallDocuments;
        (Container raw, Container leases) = await ContainersAsync();
        await SeedAsync(raw, count, Ct);
        ContainerEncryptionPolicy policy = Policy(EncryptionFixture.Dek1);

        // Slowed by a budget so that it is still running when cancelled.
        EncryptionMigrationOptions options = Options();
        options.RequestUnitsPerSecond = Math.Max(20, count / 4);
        options.MaxItemsPerBatch = 10;
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(Ct);
        var progress = new InlineProgress(p =>
        {
            if (p.DocumentsRewritten >= count / 3)
            {
                stop.Cancel();
            }
        });
        EncryptionMigrationResult first;
        await using (var job = new EncryptionMigrationJob(raw, fixture.Encryptor, policy, leases, options))
        {
            first = await job.RunAsync(progress, stop.Token);
        }

        Assert.False(first.Completed);
        Assert.InRange(first.Progress.DocumentsRewritten, count / 3, count - 1);

        await using var restarted = new EncryptionMigrationJob(raw, fixture.Encryptor, policy, leases, Options("b"));
        EncryptionMigrationResult second = await RunAsync(restarted, Ct);

        // Nothing is rewritten twice and nothing goes uncounted: what the first run wrote comes back in the target
        // state and is skipped, and the replaces it had sent when cancelled finished and were counted.
        Assert.True(second.Completed);
        Assert.Equal(count, first.Progress.DocumentsRewritten + second.Progress.DocumentsRewritten);
        Dictionary<string, JObject> read = await ReadDecryptedAsync(raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = policy }), Ct);
        Assert.All(Enumerable.Range(0, count), i => Assert.Equal(Ssn(i, 0), (string)read[DocumentId(i)]["ssn"]!));
    }

    [Fact]
    public async Task TwoInstances_SharingTheLeaseContainer_TogetherMigrateEveryDocumentOnce()
    {
        int count = SmallDocuments;
        (Container raw, Container leases) = await ContainersAsync();
        await SeedAsync(raw, count, Ct);
        ContainerEncryptionPolicy policy = Policy(EncryptionFixture.Dek1);

        await using var a = new EncryptionMigrationJob(raw, fixture.Encryptor, policy, leases, Options("a"));
        await using var b = new EncryptionMigrationJob(raw, fixture.Encryptor, policy, leases, Options("b"));
        EncryptionMigrationResult[] results = await RunSecondOnFirstReportAsync(a, b, Ct);

        Assert.All(results, r => Assert.True(r.Completed));
        Assert.Equal(count, results.Sum(r => r.Progress.DocumentsRewritten));
        EncryptionMigrationStatus status = await EncryptionMigrationJob.GetStatusAsync(raw, policy, Ct);
        Assert.Equal(count, status.DocumentsInTargetState);
        Assert.Equal(count, status.TotalDocuments);
    }

    /// <summary>Counts the transactional-batch/bulk requests (the SDK's batch header) sent through its client.</summary>
    private sealed class BatchRequestCounter : RequestHandler
    {
        private int _count;

        public int Count => Volatile.Read(ref _count);

        public override Task<ResponseMessage> SendAsync(RequestMessage request, CancellationToken cancellationToken)
        {
            if (string.Equals(request.Headers["x-ms-cosmos-is-batch-request"], "True", StringComparison.OrdinalIgnoreCase))
            {
                Interlocked.Increment(ref _count);
            }

            return base.SendAsync(request, cancellationToken);
        }
    }
}

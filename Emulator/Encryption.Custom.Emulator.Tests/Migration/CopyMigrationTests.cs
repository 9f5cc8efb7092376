using Encryption.Custom.Emulator.Tests.Encryption;
using Encryption.Custom.Emulator.Tests.Hosting;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.CopyScenario;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// <see cref="EncryptionMigrationJob"/> copying a container into a new one under another policy, on the real change
/// feed processor, while the source is still written: the target ends decrypting to exactly the source's plaintext,
/// and <see cref="EncryptionMigrationJob.GetCopyStatusAsync"/> says so (or says what is missing, different or extra).
/// </summary>
public sealed class CopyMigrationTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    // The source during the copy: /ssn under DEK1, read-both (the application's own policy).
    private static readonly ContainerEncryptionPolicy s_source = new(EncryptionFixture.Dek1, ["/ssn"]) { PlaintextPolicy = PlaintextPolicy.WriteEncryptedReadBoth };

    // The target: a new key and a path more (a rotation and a changed set of paths in one copy).
    private static readonly ContainerEncryptionPolicy s_target = new(EncryptionFixture.Dek2, Paths) { PlaintextPolicy = PlaintextPolicy.WriteEncryptedForbidPlaintext };

    // The same target that also encrypts the id and the partition key deterministically: every copy gets a new stored id.
    private static readonly ContainerEncryptionPolicy s_idAndKeyTarget = new(EncryptionFixture.Dek2, [
        new EncryptionPolicyIncludedPath("/id") { EncryptionType = PathEncryptionType.Deterministic },
        new EncryptionPolicyIncludedPath("/pk") { EncryptionType = PathEncryptionType.Deterministic },
        .. Paths.Select(p => new EncryptionPolicyIncludedPath(p))]) { PlaintextPolicy = PlaintextPolicy.WriteEncryptedForbidPlaintext };

    private async Task<(Container Source, Container Target, Container Leases)> ContainersAsync()
    {
        (Container source, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container target, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        return (source, target, leases);
    }

    private static Container View(Container container, Encryptor encryptor, ContainerEncryptionPolicy? policy) =>
        container.WithEncryptor(encryptor, new EncryptionContainerOptions { Policy = policy });

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Copy_WhileAWriterUpdatesAndCreates_TargetDecryptsToTheSourcesPlaintext(bool encryptIdAndKey)
    {
        ContainerEncryptionPolicy targetPolicy = encryptIdAndKey ? s_idAndKeyTarget : s_target;
        int count = SmallDocuments;
        (Container source, Container target, Container leases) = await ContainersAsync();
        Container writerView = View(source, fixture.Encryptor, s_source);
        await SeedAsync(writerView, count, Ct);

        // The writer updates random documents and creates new ones until the job has copied as many documents as the
        // source first held (and for at least 100 writes): with the job on a budget, most updates then land on documents
        // already copied, which the feed must deliver again.
        var copiedOnce = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var stopWriter = CancellationTokenSource.CreateLinkedTokenSource(Ct);
        int created = 0;
        long writes = 0;
        Task writer = Task.Run(async () =>
        {
            var random = new Random(23);
            var versions = new int[count];
            while (!stopWriter.IsCancellationRequested)
            {
                JObject document;
                if (random.Next(5) == 0)
                {
                    document = Document(count + created++, 0);
                }
                else
                {
                    int i = random.Next(count);
                    document = Document(i, ++versions[i]);
                }

                await writerView.UpsertItemAsync(document, PartitionKeyOf(document), cancellationToken: Ct);
                if (Interlocked.Increment(ref writes) >= 100 && copiedOnce.Task.IsCompleted)
                {
                    return;
                }

                await Task.Delay(5, Ct);
            }
        }, Ct);

        EncryptionMigrationOptions options = Options();
        options.RequestUnitsPerSecond = 100;
        await using var job = new EncryptionMigrationJob(source, s_source, target, targetPolicy, fixture.Encryptor, leases, options);
        var progress = new InlineProgress(report =>
        {
            if (report.DocumentsRewritten >= count)
            {
                copiedOnce.TrySetResult();
            }
        });
        Task<EncryptionMigrationResult> run = RunAsync(job, Ct, progress);
        await writer.WaitAsync(RunBound, Ct);
        EncryptionMigrationResult result = await run;

        Assert.True(result.Completed);
        Assert.Empty(result.Failures);
        Assert.True(result.Progress.DocumentsRewritten > count, "no document was copied twice: the writer's updates did not reach copied documents");
        Assert.True(result.CopyVerification?.IsComplete, "the job's own verification did not find the copy complete");
        await AssertTargetEqualsSourceAsync(source, s_source, target, targetPolicy, fixture.Encryptor, Ct);

        // A final catch-up: more writes after completion, and the same job name again picks them up from its checkpoints.
        for (int i = 0; i < 10; i++)
        {
            JObject document = Document(i, 1000);
            await writerView.UpsertItemAsync(document, PartitionKeyOf(document), cancellationToken: Ct);
        }

        await using var again = new EncryptionMigrationJob(source, s_source, target, targetPolicy, fixture.Encryptor, leases, Options());
        EncryptionMigrationResult catchUp = await RunAsync(again, Ct);
        Assert.True(catchUp.Completed);
        Assert.InRange(catchUp.Progress.DocumentsSeen, 10, count);

        int total = count + created;
        EncryptionCopyStatus status = await EncryptionMigrationJob.GetCopyStatusAsync(source, s_source, target, targetPolicy, fixture.Encryptor, Ct);
        TestContext.Current.SendDiagnosticMessage($"{writes} writes ({created} creates) during the copy; {result.Progress.DocumentsRewritten} upserts.");
        Assert.True(status.IsComplete);
        Assert.Equal(total, status.SourceDocuments);
        Assert.Equal(total, status.DocumentsCopied);
        Assert.Equal(0, status.DocumentsOnlyInTarget);
        Assert.Equal(total, status.Target.TotalDocuments);
        Assert.Equal(total, status.Target.DocumentsByDataEncryptionKeyId[EncryptionFixture.Dek2]);
        await AssertTargetEqualsSourceAsync(source, s_source, target, targetPolicy, fixture.Encryptor, Ct);
        Dictionary<string, JObject> stored = await ReadStoredAsync(target, Ct);
        Assert.All(stored.Values, copy =>
        {
            Assert.Equal(EncryptionFixture.Dek2, KeyId(copy));
            Assert.Null(copy["_lsn"]);
        });

        // Exactly once under the stored id: with the id encrypted, no copy is stored under a plaintext id.
        Assert.Equal(total, stored.Count);
        Assert.Equal(encryptIdAndKey, !stored.ContainsKey(DocumentId(0)));
    }

    [Fact]
    public async Task Copy_WithASplitOfTheSourceInTheMiddle_CopiesEveryDocument()
    {
        int count = SmallDocuments;
        Container source = await MultiRangeContainerAsync(fixture.Database, "/pk", Ct);
        (Container target, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        Container leases = await MultiRangeContainerAsync(fixture.Database, "/id", Ct);
        await SeedAsync(source, count, Ct);

        // Plaintext source to a target with a deterministic /ssn and a randomized /salary.
        var targetPolicy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, [new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic }, new EncryptionPolicyIncludedPath("/salary")]);
        Task<bool>? split = null;
        var gate = new object();
        var progress = new InlineProgress(_ =>
        {
            lock (gate)
            {
                split ??= PartitionSplits.SplitAsync(fixture.Endpoint, source, cancellationToken: Ct);
            }
        });
        EncryptionMigrationOptions options = Options();
        options.RequestUnitsPerSecond = 100; // slow enough that the split lands before the feed is drained
        await using var job = new EncryptionMigrationJob(source, null, target, targetPolicy, fixture.Encryptor, leases, options);
        EncryptionMigrationResult result = await RunAsync(job, Ct, progress);

        Assert.NotNull(split);
        Assert.Equal(fixture.Endpoint.IsBundled, await split);
        Assert.True(result.Completed);
        Assert.InRange(result.Progress.DocumentsRewritten, count, 2 * count);
        EncryptionCopyStatus status = await EncryptionMigrationJob.GetCopyStatusAsync(source, null, target, targetPolicy, fixture.Encryptor, Ct);
        Assert.True(status.IsComplete);
        Assert.True(status.Target.EncryptionTypesChecked);
        Assert.Equal(count, status.DocumentsCopied);
        Assert.Equal(count, status.Target.TotalDocuments);
        await AssertTargetEqualsSourceAsync(source, null, target, targetPolicy, fixture.Encryptor, Ct);

        // The deterministic path finds each copy by its value.
        Container targetView = View(target, fixture.Encryptor, targetPolicy);
        QueryDefinition query = await new QueryDefinition("SELECT * FROM c WHERE c.ssn = @ssn")
            .AddParameterAsync("@ssn", Ssn(7, 0), "/ssn", targetView, Ct);
        using FeedIterator<JObject> found = targetView.GetItemQueryIterator<JObject>(query);
        var ids = new List<string>();
        while (found.HasMoreResults)
        {
            ids.AddRange((await found.ReadNextAsync(Ct)).Select(d => (string)d["id"]!));
        }

        Assert.Equal([DocumentId(7)], ids);
    }

    [Fact]
    public async Task Copy_IntoATargetThatEncryptsTheIdAndThePartitionKey_StoresOnlyTheirCipherText_AndFindsEachByItsPlaintext()
    {
        int count = Math.Min(SmallDocuments, 60);
        (Container source, Container target, Container leases) = await ContainersAsync();
        await SeedAsync(source, count, Ct);
        var targetPolicy = new ContainerEncryptionPolicy(EncryptionFixture.Dek2,
        [
            new EncryptionPolicyIncludedPath("/id") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/pk") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/ssn"),
        ]);
        await using (var job = new EncryptionMigrationJob(source, null, target, targetPolicy, fixture.Encryptor, leases, Options()))
        {
            Assert.True((await RunAsync(job, Ct)).Completed);
        }

        EncryptionCopyStatus status = await EncryptionMigrationJob.GetCopyStatusAsync(source, null, target, targetPolicy, fixture.Encryptor, Ct);
        Assert.True(status.IsComplete);
        Assert.Equal(count, status.DocumentsCopied);
        await AssertTargetEqualsSourceAsync(source, null, target, targetPolicy, fixture.Encryptor, Ct);

        // The service holds neither plaintext ids nor keys; the application finds each copy by them.
        Dictionary<string, JObject> stored = await ReadStoredAsync(target, Ct);
        Assert.Equal(count, stored.Count);
        Assert.All(stored.Values, document =>
        {
            Assert.DoesNotMatch("^d[0-9]{5}$", (string)document["id"]!);
            Assert.DoesNotMatch("^p[0-9]$", (string)document["pk"]!);
        });
        Container targetView = View(target, fixture.Encryptor, targetPolicy);
        JObject seventh = (await targetView.ReadItemAsync<JObject>(DocumentId(7), PartitionKeyOf(Document(7, 0)), cancellationToken: Ct)).Resource;
        Assert.Equal(DocumentId(7), (string?)seventh["id"]);
    }

    [Fact]
    public async Task CopyStatus_FindsMissingDifferentAndExtraDocuments_AndARerunCompletesAllButTheDeletion()
    {
        const int Count = 30;
        (Container source, Container target, Container leases) = await ContainersAsync();
        Container writerView = View(source, fixture.Encryptor, s_source);
        await SeedAsync(writerView, Count, Ct);
        EncryptionMigrationOptions options = Options();
        options.ProcessorName = "copy-" + Guid.NewGuid().ToString("N");
        await using (var job = new EncryptionMigrationJob(source, s_source, target, s_target, fixture.Encryptor, leases, options))
        {
            Assert.True((await RunAsync(job, Ct)).Completed);
        }

        // After the copy: one source document deleted, one updated, one created.
        JObject deleted = Document(0, 0);
        await source.DeleteItemAsync<JObject>(DocumentId(0), PartitionKeyOf(deleted), cancellationToken: Ct);
        JObject updated = Document(1, 5);
        await writerView.UpsertItemAsync(updated, PartitionKeyOf(updated), cancellationToken: Ct);
        JObject added = Document(Count, 0);
        await writerView.CreateItemAsync(added, PartitionKeyOf(added), cancellationToken: Ct);

        EncryptionCopyStatus status = await EncryptionMigrationJob.GetCopyStatusAsync(source, s_source, target, s_target, fixture.Encryptor, Ct);
        Assert.False(status.IsComplete);
        Assert.Equal(Count, status.SourceDocuments);
        Assert.Equal(Count - 2, status.DocumentsCopied);
        Assert.Equal(1, status.DocumentsMissingFromTarget);
        Assert.Equal(1, status.DocumentsDifferentInTarget);
        Assert.Equal(1, status.DocumentsOnlyInTarget);
        Assert.Equal(Count, status.Target.DocumentsInTargetState);

        // The same job again: the update and the new document arrive; the deletion is not the copy's to propagate.
        await using (var job = new EncryptionMigrationJob(source, s_source, target, s_target, fixture.Encryptor, leases, options))
        {
            Assert.True((await RunAsync(job, Ct)).Completed);
        }

        status = await EncryptionMigrationJob.GetCopyStatusAsync(source, s_source, target, s_target, fixture.Encryptor, Ct);
        Assert.True(status.IsComplete);
        Assert.Equal(Count, status.DocumentsCopied);
        Assert.Equal(1, status.DocumentsOnlyInTarget);
        Dictionary<string, JObject> copies = await ReadPlaintextAsync(target, fixture.Encryptor, s_target, Ct);
        Assert.Equal(Ssn(1, 5), (string)copies[DocumentId(1)]["ssn"]!);
        Assert.True(copies.ContainsKey(DocumentId(0)));
    }

    [Fact]
    public async Task InPlace_TargetEncryptingThePartitionKey_IsRefusedAndPointsAtTheCopy()
    {
        (Container source, _, Container leases) = await ContainersAsync();
        await SeedAsync(source, 5, Ct);
        var policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, ["/pk", "/ssn"]);
        await using var job = new EncryptionMigrationJob(source, fixture.Encryptor, policy, leases, Options());

        EncryptionException refused = await Assert.ThrowsAsync<EncryptionException>(() => RunAsync(job, Ct));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, refused.Kind);
        Assert.Contains("/pk", refused.Message, StringComparison.Ordinal);
        Assert.Contains("Copy the container", refused.Message, StringComparison.Ordinal);
        await AssertNoLeaseAsync(leases, Ct);
        Assert.All((await ReadStoredAsync(source, Ct)).Values, stored => Assert.Null(KeyId(stored)));
    }

    [Fact]
    public void Copy_IntoItsOwnSource_IsRefused()
    {
        Container source = fixture.Database.GetContainer("any");
        Assert.Throws<ArgumentException>(() => new EncryptionMigrationJob(source, null, fixture.Database.GetContainer("any"), s_target, fixture.Encryptor, fixture.Database.GetContainer("leases")));
    }
}

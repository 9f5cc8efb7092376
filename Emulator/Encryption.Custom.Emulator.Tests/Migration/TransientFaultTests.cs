using Encryption.Custom.Emulator.Tests.Encryption;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// Transient means retry: with 503, 408, 410, connection resets and writes whose answer is lost injected between
/// the SDK and the endpoint (<see cref="FaultInjectingHandler"/>) into the job's replaces and reads, its change feed
/// pages and queries, and the processor's lease traffic, the job still finishes with every document in the target
/// state and no document reported: a document fails only for a permanent reason.
/// </summary>
public sealed class TransientFaultTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Migration_UnderInjectedTransientFaultsAtEveryStep_CompletesWithEveryDocumentMigratedAndNoneReported()
    {
        const int Count = 120;
        var policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, Paths);
        (Container created, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container createdLeases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        await SeedAsync(created, Count, Ct);

        var faults = new FaultInjectingHandler(everyNth: 4, request => FaultInjectingHandler.KindOf(request, createdLeases.Id));
        using var faulty = fixture.Endpoint.CreateClientThrough(faults);
        Container raw = faulty.GetContainer(fixture.Database.Id, created.Id);
        Container leases = faulty.GetContainer(fixture.Database.Id, createdLeases.Id);
        EncryptionMigrationOptions options = Options();
        options.MaxItemsPerBatch = 20;

        await using var job = new EncryptionMigrationJob(raw, fixture.Encryptor, policy, leases, options);
        EncryptionMigrationResult result = await RunAsync(job, Ct);
        faults.Enabled = false;

        string injected = string.Join(", ", faults.Injected.OrderBy(f => f.Key.Kind).Select(f => $"{f.Key.Kind}/{f.Key.Fault}={f.Value}"));
        TestContext.Current.SendDiagnosticMessage(injected);
        Assert.Empty(result.Failures);
        Assert.True(result.Completed);
        Assert.Equal(0, result.Verification!.DocumentsOutsideTargetState);
        foreach (string kind in new[] { "replace", "change-feed", "query" })
        {
            Assert.True(faults.Injected.Keys.Any(k => k.Kind == kind), $"No fault was injected into {kind} requests (injected: {injected}; seen: {string.Join(", ", faults.Seen.Keys.Order())}).");
        }

        foreach (InjectedFault fault in Enum.GetValues<InjectedFault>().Where(f => f != InjectedFault.TruncatedAnswer))
        {
            Assert.True(faults.Injected.Keys.Any(k => k.Fault == fault), $"No {fault} was injected.");
        }

        Dictionary<string, JObject> stored = await ReadStoredAsync(created, Ct);
        Assert.Equal(Count, stored.Count);
        Assert.All(stored.Values, d => Assert.Equal(EncryptionFixture.Dek1, KeyId(d)));
        Container reader = created.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = policy });
        Dictionary<string, JObject> read = await ReadDecryptedAsync(reader, Ct);
        for (int i = 0; i < Count; i++)
        {
            Assert.Equal(Ssn(i, 0), (string)read[DocumentId(i)]["ssn"]!);
        }
    }

    [Fact]
    public async Task Status_UnderInjectedTransientFaults_CountsEveryDocument()
    {
        const int Count = 60;
        (Container created, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        await SeedAsync(created, Count, Ct);
        var faults = new FaultInjectingHandler(everyNth: 2, request => FaultInjectingHandler.KindOf(request, "none"));
        using var faulty = fixture.Endpoint.CreateClientThrough(faults);

        EncryptionMigrationStatus status = await EncryptionMigrationJob.GetStatusAsync(
            faulty.GetContainer(fixture.Database.Id, created.Id), new ContainerEncryptionPolicy(EncryptionFixture.Dek1, Paths), Ct);

        Assert.Equal(Count, status.TotalDocuments);
        Assert.Equal(Count, status.PlaintextDocuments);
        Assert.Contains(faults.Injected.Keys, k => k.Kind == "query");
    }

    // The SDK in Gateway mode off Windows asks the gateway for every cross-partition query's plan; an answer cut off
    // mid-body is as transient as a 503 (the next request gets a whole one), so the status query must still count
    // every document.
    [Fact]
    public async Task Status_WithTruncatedQueryPlanAnswers_CountsEveryDocument()
    {
        const int Count = 60;
        (Container created, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        await SeedAsync(created, Count, Ct);
        var faults = new FaultInjectingHandler(everyNth: int.MaxValue, request => FaultInjectingHandler.KindOf(request, "none"));
        faults.Script(FaultInjectingHandler.QueryPlan, [.. Enumerable.Repeat(InjectedFault.TruncatedAnswer, 3)]);
        using var faulty = fixture.Endpoint.CreateClientThrough(faults);

        EncryptionMigrationStatus status = await EncryptionMigrationJob.GetStatusAsync(
            faulty.GetContainer(fixture.Database.Id, created.Id), new ContainerEncryptionPolicy(EncryptionFixture.Dek1, Paths), Ct);

        Assert.Equal(3, faults.Injected[(FaultInjectingHandler.QueryPlan, InjectedFault.TruncatedAnswer)]);
        Assert.Equal(Count, status.TotalDocuments);
        Assert.Equal(Count, status.PlaintextDocuments);
    }

    [Fact]
    public async Task Migration_WithTruncatedQueryPlanAnswers_CompletesWithEveryDocumentMigrated()
    {
        const int Count = 60;
        var policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, Paths);
        (Container created, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container createdLeases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        await SeedAsync(created, Count, Ct);
        var faults = new FaultInjectingHandler(everyNth: int.MaxValue, request => FaultInjectingHandler.KindOf(request, createdLeases.Id));
        faults.Script(FaultInjectingHandler.QueryPlan, [.. Enumerable.Repeat(InjectedFault.TruncatedAnswer, 4)]);
        using var faulty = fixture.Endpoint.CreateClientThrough(faults);

        await using var job = new EncryptionMigrationJob(
            faulty.GetContainer(fixture.Database.Id, created.Id), fixture.Encryptor, policy, faulty.GetContainer(fixture.Database.Id, createdLeases.Id), Options());
        EncryptionMigrationResult result = await RunAsync(job, Ct);

        Assert.Equal(4, faults.Injected[(FaultInjectingHandler.QueryPlan, InjectedFault.TruncatedAnswer)]);
        Assert.Empty(result.Failures);
        Assert.True(result.Completed);
        Assert.Equal(0, result.Verification!.DocumentsOutsideTargetState);
        Dictionary<string, JObject> stored = await ReadStoredAsync(created, Ct);
        Assert.Equal(Count, stored.Count);
        Assert.All(stored.Values, d => Assert.Equal(EncryptionFixture.Dek1, KeyId(d)));
    }
}

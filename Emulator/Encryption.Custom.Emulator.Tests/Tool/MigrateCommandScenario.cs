using System.Text.Json;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Tool;

/// <summary>
/// What the <c>cosmos-encryption migrate</c> end-to-end tests share: the target, seeding, and the checks against what
/// the service stores. The tests are split over two classes (<see cref="MigrateCommandTests"/>, <see cref="MigrateKillTests"/>)
/// because a class runs its tests one after the other, and the kill test alone waits some 20 s of real time.
/// </summary>
public abstract class MigrateCommandScenario(ToolFixture fixture)
{
    /// <summary>The class fixture: the endpoint, the DEK container, the KEK file and the tool's arguments.</summary>
    private protected ToolFixture Fixture { get; } = fixture;

    private protected static TimeSpan RunBound { get; } = TimeSpan.FromMinutes(2);
    private protected static string[] Target { get; } = ["--path", "/ssn", "--path", "/salary"];

    private protected static CancellationToken Ct => TestContext.Current.CancellationToken;

    private protected static ContainerEncryptionPolicy Policy(string dek) => new(dek, Paths);

    private protected static string NewLeaseContainer() => "leases-" + Guid.NewGuid().ToString("N");

    private protected Task<ToolResult> RunAsync(string[] args) => ToolInProcess.RunAsync(Fixture.Endpoint, args, RunBound);

    /// <summary>
    /// Starts <paramref name="args"/> as a child process and kills it (SIGKILL) once a progress line counts at least
    /// <paramref name="rewritten"/> documents: the run must not have ended by itself, nor printed its <c>done:</c> line.
    /// </summary>
    private protected async Task KillAfterAsync(string[] args, int rewritten)
    {
        var someDone = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using ToolProcess first = ToolProcess.Start(Fixture.Endpoint, args, line =>
        {
            if (line.StartsWith("progress:", StringComparison.Ordinal) && ProgressLine.Count(ProgressLine.Parse(line), "rewritten") >= rewritten)
            {
                someDone.TrySetResult();
            }
        });
        await someDone.Task.WaitAsync(RunBound, Ct);
        first.Kill();
        ToolResult killed = await first.WaitAsync(RunBound);
        Assert.NotEqual(0, killed.ExitCode);
        Assert.DoesNotContain(killed.Lines, l => l.StartsWith("done:", StringComparison.Ordinal));
    }

    private protected async Task<JsonElement> StatusAsync(Container raw, string[] target)
    {
        ToolResult run = (await RunAsync(["status", .. Fixture.ContainerArguments(raw), .. target])).AssertSuccess();
        return JsonDocument.Parse(Assert.Single(run.Lines)).RootElement;
    }

    private protected static long Number(JsonElement status, string name) => status.GetProperty(name).GetInt64();

    private protected static (string Dek, long Count)[] DekCounts(JsonElement status) =>
        [.. status.GetProperty("byDekId").EnumerateObject().Where(p => p.Value.GetInt64() > 0).Select(p => (p.Name, p.Value.GetInt64()))];

    private protected static async Task SeedInTargetAsync(Container targetWriter, int count)
    {
        for (int start = 0; start < count; start += 25)
        {
            await Task.WhenAll(Enumerable.Range(start, Math.Min(25, count - start)).Select(i =>
                targetWriter.CreateItemAsync(InTargetDocument(i), PartitionKeyOf(InTargetDocument(i)), cancellationToken: Ct)));
        }
    }

    private protected static JObject InTargetDocument(int index)
    {
        JObject document = Document(index, 0);
        document["id"] = "t" + DocumentId(index);
        return document;
    }

    private protected async Task<List<JObject>> LeaseDocumentsAsync(string leaseContainer)
    {
        var documents = new List<JObject>();
        using FeedIterator<JObject> iterator = Fixture.Database.GetContainer(leaseContainer).GetItemQueryIterator<JObject>("SELECT * FROM c");
        while (iterator.HasMoreResults)
        {
            documents.AddRange(await iterator.ReadNextAsync(Ct));
        }

        return documents;
    }

    // Every document is stored under the DEK, and reads back (through the library, plaintext forbidden) as seeded.
    private protected async Task AssertEveryDocumentAsync(Container raw, string dek, int plaintextSeeded, int inTargetSeeded = 0)
    {
        Dictionary<string, JObject> stored = await ReadStoredAsync(raw, Ct);
        Assert.Equal(plaintextSeeded + inTargetSeeded, stored.Count);
        Assert.All(stored.Values, d => Assert.Equal(dek, KeyId(d)));
        Container reader = raw.WithEncryptor(Fixture.Encryptor, new EncryptionContainerOptions { Policy = Policy(dek) });
        Dictionary<string, JObject> read = await ReadDecryptedAsync(reader, Ct);
        for (int i = 0; i < plaintextSeeded; i++)
        {
            AssertSame(Document(i, 0), read[DocumentId(i)]);
        }

        for (int i = 0; i < inTargetSeeded; i++)
        {
            AssertSame(InTargetDocument(i), read["t" + DocumentId(i)]);
        }
    }

    private protected static void AssertSame(JObject expected, JObject actual)
    {
        foreach (JProperty property in expected.Properties())
        {
            Assert.True(JToken.DeepEquals(property.Value, actual[property.Name]), $"{expected["id"]}: {property.Name} differs.");
        }
    }

    private protected static void AssertNoPlaintext(int count, params ToolResult[] runs)
    {
        foreach (ToolResult run in runs)
        {
            string all = run.Output + run.Error;
            for (int i = 0; i < count; i++)
            {
                Assert.DoesNotContain(Ssn(i, 0), all, StringComparison.Ordinal);
            }
        }
    }
}

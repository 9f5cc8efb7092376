using System.Globalization;
using Encryption.Custom.Emulator.Tests.Encryption;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// The migration job moves documents between format 3 and the extended format 101 (docs/migration.md "Moving
/// between formats"): to 101 when the target adds nested selectors and turns binding on, back to 3 when the target
/// is top-level and unbound, judged and verified by format; a target that binds on a container that cannot bind is
/// refused before the first write. Checked on the stored documents and by reading them back through the container.
/// </summary>
public sealed class FormatMigrationTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private const int Count = 40;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static ContainerEncryptionPolicy TopLevel(bool bind) =>
        new(EncryptionFixture.Dek1,
        [
            new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/salary"),
        ]) { Bind = bind };

    private static ContainerEncryptionPolicy NestedBound() =>
        new(EncryptionFixture.Dek1,
        [
            new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/salary"),
            new EncryptionPolicyIncludedPath("/address/city"),
            new EncryptionPolicyIncludedPath("/cards/[]/number"),
        ]) { Bind = true };

    private static JObject Row(int index) => new()
    {
        ["id"] = DocumentId(index),
        ["pk"] = "p" + (index % 5).ToString(CultureInfo.InvariantCulture),
        ["ssn"] = "ssn-" + index.ToString(CultureInfo.InvariantCulture),
        ["salary"] = index * 100,
        ["address"] = new JObject { ["city"] = "city-" + index.ToString(CultureInfo.InvariantCulture), ["zip"] = "z" },
        ["cards"] = new JArray(new JObject { ["number"] = "4111-" + index.ToString(CultureInfo.InvariantCulture), ["expiry"] = "12/30" }),
    };

    private static async Task SeedAsync(Container container)
    {
        await Task.WhenAll(Enumerable.Range(0, Count).Select(async i =>
        {
            JObject row = Row(i);
            await container.CreateItemAsync(row, new PartitionKey((string)row["pk"]!), cancellationToken: Ct);
        }));
    }

    private async Task<EncryptionMigrationResult> MigrateAsync(Container raw, Container leases, ContainerEncryptionPolicy target, string name, JsonProcessor processor)
    {
        EncryptionMigrationOptions options = Options();
        options.ProcessorName = name;
        options.JsonProcessor = processor;
        await using var job = new EncryptionMigrationJob(raw, fixture.Encryptor, target, leases, options);
        return await RunAsync(job, Ct);
    }

    // Every document, read through a container with the target policy (which verifies bound cells), equals its row.
    private async Task AssertReadBackAsync(Container raw, ContainerEncryptionPolicy target)
    {
        Container container = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = target });
        Dictionary<string, JObject> read = await ReadDecryptedAsync(container, Ct);
        Assert.Equal(Count, read.Count);
        for (int i = 0; i < Count; i++)
        {
            JObject expected = Row(i);
            JObject actual = read[DocumentId(i)];
            foreach (string name in new[] { "ssn", "salary", "address", "cards" })
            {
                Assert.True(JToken.DeepEquals(expected[name], actual[name]), $"{DocumentId(i)}/{name}");
            }
        }
    }

    [Theory]
    [InlineData(JsonProcessor.Stream)]
    [InlineData(JsonProcessor.Newtonsoft)]
    public async Task Format3_ToNestedSelectorsWithBinding_MovesEveryDocumentTo101Bound(JsonProcessor processor)
    {
        (Container raw, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        await SeedAsync(raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = TopLevel(bind: false) }));
        ContainerEncryptionPolicy target = NestedBound();
        EncryptionMigrationStatus before = await EncryptionMigrationJob.GetStatusAsync(raw, fixture.Encryptor, target, Ct);

        EncryptionMigrationResult result = await MigrateAsync(raw, leases, target, "to-101", processor);

        Assert.Equal(new Dictionary<int, long> { [3] = Count }, before.DocumentsByFormatVersion);
        Assert.Equal(Count, before.DocumentsOutsideTargetState);
        Assert.True(result.Completed);
        Assert.Empty(result.Failures);
        Assert.Equal(Count, result.Progress.DocumentsRewritten);
        Assert.All((await ReadStoredAsync(raw, Ct)).Values, stored =>
        {
            Assert.Equal(101, (int)stored["_ei"]!["_ef"]!);
            Assert.Contains("bind", stored["_ei"]!["_ev"]!["crit"]!.Values<string>());
            Assert.DoesNotContain("city-", stored["address"]!.ToString(), StringComparison.Ordinal);
            Assert.Equal("z", (string?)stored["address"]!["zip"]);
        });
        EncryptionMigrationStatus after = await EncryptionMigrationJob.GetStatusAsync(raw, fixture.Encryptor, target, Ct);
        Assert.Equal((0L, Count), (after.DocumentsOutsideTargetState, after.DocumentsByFormatVersion[101]));
        await AssertReadBackAsync(raw, target);
    }

    [Theory]
    [InlineData(JsonProcessor.Stream)]
    [InlineData(JsonProcessor.Newtonsoft)]
    public async Task Format101Bound_ToTopLevelUnbound_MovesEveryDocumentBackTo3(JsonProcessor processor)
    {
        (Container raw, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        await SeedAsync(raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = TopLevel(bind: true) }));
        ContainerEncryptionPolicy target = TopLevel(bind: false);
        Assert.All((await ReadStoredAsync(raw, Ct)).Values, stored => Assert.Equal(101, (int)stored["_ei"]!["_ef"]!));

        EncryptionMigrationResult result = await MigrateAsync(raw, leases, target, "to-3", processor);

        Assert.True(result.Completed);
        Assert.Empty(result.Failures);
        Assert.Equal(Count, result.Progress.DocumentsRewritten);
        Assert.All((await ReadStoredAsync(raw, Ct)).Values, stored =>
        {
            Assert.Equal(3, (int)stored["_ei"]!["_ef"]!);
            Assert.Null(stored["_ex"]);
        });
        EncryptionMigrationStatus after = await EncryptionMigrationJob.GetStatusAsync(raw, target, Ct);
        Assert.Equal(new Dictionary<int, long> { [3] = Count }, after.DocumentsByFormatVersion);
        Assert.Equal(0, after.DocumentsOutsideTargetState);
        await AssertReadBackAsync(raw, target);
    }

    [Fact]
    public async Task BindingTarget_OnAContainerWithANestedPartitionKey_IsRefusedBeforeAnyWrite()
    {
        (Container raw, _) = await fixture.CreateContainerAsync("/tenant/id", cancellationToken: Ct);
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        await raw.CreateItemAsync(new JObject { ["id"] = "a", ["tenant"] = new JObject { ["id"] = "t" }, ["ssn"] = "1" }, new PartitionKey("t"), cancellationToken: Ct);
        EncryptionMigrationOptions options = Options();
        options.ProcessorName = "refused";
        await using var job = new EncryptionMigrationJob(raw, fixture.Encryptor, TopLevel(bind: true), leases, options);

        EncryptionException exception = await Assert.ThrowsAsync<EncryptionException>(() => RunAsync(job, Ct));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, exception.Kind);
        Assert.Null(KeyId((await ReadStoredAsync(raw, Ct))["a"]));
    }
}

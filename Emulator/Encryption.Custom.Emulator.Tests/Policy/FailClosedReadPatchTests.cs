using Encryption.Custom.Emulator.Tests.Encryption;
using Encryption.Custom.Emulator.Tests.Migration;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Policy;

/// <summary>
/// Issue 23 through the real SDK against the endpoint, policy <c>/ssn</c> deterministic and <c>/card</c> randomized,
/// strict mode: reads refuse plaintext under a case-variant name; patches never pass plaintext to a policy path nor
/// load a key the policy does not accept; ciphertext that lost its envelope is never returned, patched over or
/// encrypted again.
/// </summary>
public sealed class FailClosedReadPatchTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private const string Ssn = "078-05-1120";

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public static TheoryData<JsonProcessor> Processors => [JsonProcessor.Stream, JsonProcessor.Newtonsoft];

    private static ContainerEncryptionPolicy Policy(string dek = EncryptionFixture.Dek1, PlaintextPolicy mode = PlaintextPolicy.WriteEncryptedForbidPlaintext) =>
        new(dek, [new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic }, new EncryptionPolicyIncludedPath("/card")]) { PlaintextPolicy = mode };

    private async Task<(Container Raw, Container Encrypted)> ContainerAsync(JsonProcessor processor = JsonProcessor.Stream, ContainerEncryptionPolicy? policy = null)
    {
        (Container raw, Container _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        return (raw, raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = policy ?? Policy(), JsonProcessor = processor }));
    }

    private static async Task UpsertRawAsync(Container raw, JObject document)
    {
        using var body = new MemoryStream(System.Text.Encoding.UTF8.GetBytes(document.ToString(Formatting.None)));
        using ResponseMessage response = await raw.UpsertItemStreamAsync(body, new PartitionKey((string)document["pk"]!), cancellationToken: Ct);
        response.EnsureSuccessStatusCode();
    }

    private static JObject Genuine(string id) => new() { ["id"] = id, ["pk"] = "p0", ["ssn"] = Ssn, ["card"] = "4111-1111", ["name"] = "Alice" };

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task CaseVariantPlaintext_IsRefusedByTypedAndStreamReads(JsonProcessor processor)
    {
        (Container raw, Container container) = await ContainerAsync(processor);
        await UpsertRawAsync(raw, new JObject { ["id"] = "plain", ["pk"] = "p0", ["SSN"] = Ssn });
        await container.CreateItemAsync(Genuine("swapped"), new PartitionKey("p0"), cancellationToken: Ct);
        JObject swapped = await RawDocuments.ReadAsync(raw, "swapped", new PartitionKey("p0"), Ct);
        swapped.Remove("ssn");
        swapped["Ssn"] = Ssn;
        await UpsertRawAsync(raw, swapped);

        foreach (string id in new[] { "plain", "swapped" })
        {
            // The SDK's default serializer binds SSN and Ssn to the Ssn member: the read must fail, never bind it.
            EncryptionException typed = await Assert.ThrowsAsync<EncryptionException>(() => container.ReadItemAsync<Customer>(id, new PartitionKey("p0"), cancellationToken: Ct));
            Assert.Equal(EncryptionErrorKind.PlaintextForbidden, typed.Kind);
            Assert.Equal("/ssn", typed.Path);
            Assert.Contains($"'{id}'", typed.Message, StringComparison.Ordinal);
            Assert.DoesNotContain(Ssn, typed.ToString(), StringComparison.Ordinal);
            await Assert.ThrowsAsync<EncryptionException>(async () => (await container.ReadItemStreamAsync(id, new PartitionKey("p0"), cancellationToken: Ct)).Dispose());
        }

        // The status query does not count them as done, so the job does not skip them.
        EncryptionMigrationStatus status = await EncryptionMigrationJob.GetStatusAsync(raw, Policy(), Ct);
        Assert.Equal(2, status.TotalDocuments);
        Assert.Equal(0, status.DocumentsInTargetState);
        Assert.Equal(2, status.PlaintextDocuments);
    }

    [Fact]
    public async Task Patch_CaseVariantOrEmptySegment_IsRefusedSingleAndInABatch_AndNothingIsStored()
    {
        (Container raw, Container container) = await ContainerAsync();
        await container.CreateItemAsync(Genuine("p"), new PartitionKey("p0"), cancellationToken: Ct);
        JObject before = await RawDocuments.ReadAsync(raw, "p", new PartitionKey("p0"), Ct);

        foreach (string path in new[] { "/SSN", "/Card", "//ssn", "/ssn/" })
        {
            EncryptionException single = await Assert.ThrowsAsync<EncryptionException>(() => container.PatchItemAsync<JObject>("p", new PartitionKey("p0"), [PatchOperation.Set(path, Ssn)], cancellationToken: Ct));
            Assert.Equal(EncryptionErrorKind.InvalidOptions, single.Kind);
            Assert.DoesNotContain(Ssn, single.ToString(), StringComparison.Ordinal);

            TransactionalBatch batch = container.CreateTransactionalBatch(new PartitionKey("p0")).PatchItem("p", [PatchOperation.Set(path, Ssn)]);
            EncryptionException batched = await Assert.ThrowsAsync<EncryptionException>(() => batch.ExecuteAsync(Ct));
            Assert.Equal(EncryptionErrorKind.InvalidOptions, batched.Kind);
        }

        JObject after = await RawDocuments.ReadAsync(raw, "p", new PartitionKey("p0"), Ct);
        Assert.Equal((string?)before["_etag"], (string?)after["_etag"]);
        Assert.DoesNotContain(Ssn, after.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Patch_OfADocumentUnderAKeyThePolicyDoesNotAccept_IsRefusedBeforeTheKeyIsUsed()
    {
        (Container raw, Container dek2Writer) = await ContainerAsync(policy: Policy(EncryptionFixture.Dek2));
        Container dek1Only = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = Policy() });
        await dek2Writer.CreateItemAsync(Genuine("k"), new PartitionKey("p0"), cancellationToken: Ct);
        JObject before = await RawDocuments.ReadAsync(raw, "k", new PartitionKey("p0"), Ct);

        EncryptionException single = await Assert.ThrowsAsync<EncryptionException>(() => dek1Only.PatchItemAsync<JObject>("k", new PartitionKey("p0"), [PatchOperation.Set("/ssn", "123-45-6789")], cancellationToken: Ct));
        EncryptionException batched = await Assert.ThrowsAsync<EncryptionException>(() => dek1Only.CreateTransactionalBatch(new PartitionKey("p0")).PatchItem("k", [PatchOperation.Set("/card", "5500")]).ExecuteAsync(Ct));

        Assert.Equal(EncryptionErrorKind.KeyNotAccepted, single.Kind);
        Assert.Equal(EncryptionFixture.Dek2, single.DataEncryptionKeyId);
        Assert.Equal(EncryptionErrorKind.KeyNotAccepted, batched.Kind);
        JObject after = await RawDocuments.ReadAsync(raw, "k", new PartitionKey("p0"), Ct);
        Assert.Equal((string?)before["_etag"], (string?)after["_etag"]);
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task CipherTextWithoutEnvelope_IsNeverReturnedPatchedOverOrEncryptedAgain(JsonProcessor processor)
    {
        (Container raw, Container container) = await ContainerAsync(processor);
        await container.CreateItemAsync(Genuine("lost"), new PartitionKey("p0"), cancellationToken: Ct);

        // A service on the plain SDK reads the document into a class without _ei and replaces it.
        JObject stored = await RawDocuments.ReadAsync(raw, "lost", new PartitionKey("p0"), Ct);
        string storedSsn = (string)stored["ssn"]!;
        await UpsertRawAsync(raw, new JObject { ["id"] = "lost", ["pk"] = "p0", ["ssn"] = stored["ssn"], ["card"] = stored["card"], ["name"] = "Alice" });

        foreach (PlaintextPolicy mode in Enum.GetValues<PlaintextPolicy>())
        {
            Container reader = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = Policy(mode: mode), JsonProcessor = processor });
            EncryptionException read = await Assert.ThrowsAsync<EncryptionException>(() => reader.ReadItemAsync<JObject>("lost", new PartitionKey("p0"), cancellationToken: Ct));
            Assert.Equal(EncryptionErrorKind.UnlistedCipherText, read.Kind);
            Assert.Equal("/ssn", read.Path);
            Assert.Contains("'lost'", read.Message, StringComparison.Ordinal);
        }

        EncryptionException patch = await Assert.ThrowsAsync<EncryptionException>(() => container.PatchItemAsync<JObject>("lost", new PartitionKey("p0"), [PatchOperation.Set("/card", "5500")], cancellationToken: Ct));
        Assert.Equal(EncryptionErrorKind.UnlistedCipherText, patch.Kind);
        Assert.Null((await RawDocuments.ReadAsync(raw, "lost", new PartitionKey("p0"), Ct))["_ei"]);

        EncryptionMigrationStatus status = await EncryptionMigrationJob.GetStatusAsync(raw, Policy(), Ct);
        Assert.Equal(0, status.DocumentsInTargetState);
        Assert.Equal(1, status.DocumentsWithUnlistedCipherText);
        Assert.Equal(0, status.PlaintextDocuments);

        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        await using (var job = new EncryptionMigrationJob(raw, fixture.Encryptor, Policy(), leases, MigrationScenario.Options()))
        {
            EncryptionMigrationResult result = await MigrationScenario.RunAsync(job, Ct);
            EncryptionMigrationFailure failure = Assert.Single(result.Failures);
            Assert.Equal("lost", failure.Id);
            Assert.Equal(EncryptionErrorKind.UnlistedCipherText, failure.ErrorKind);
        }

        JObject afterJob = await RawDocuments.ReadAsync(raw, "lost", new PartitionKey("p0"), Ct);
        Assert.Equal(storedSsn, (string?)afterJob["ssn"]);
        Assert.Null(afterJob["_ei"]);
    }

    /// <summary>An application type without attributes, read with the SDK's default serializer (case-insensitive binding).</summary>
    public sealed class Customer
    {
        public string? Id { get; set; }

        public string? Pk { get; set; }

        public string? Ssn { get; set; }

        public string? Card { get; set; }
    }
}

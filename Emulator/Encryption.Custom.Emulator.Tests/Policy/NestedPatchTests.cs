using Encryption.Custom.Emulator.Tests.Encryption;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Policy.NestedCustomers;

namespace Encryption.Custom.Emulator.Tests.Policy;

/// <summary>
/// Patch under a format 101 policy (nested selectors, values bound to their document) against the bundled endpoint
/// through a real CosmosClient: a patch of a selected value or of an object or array holding selected values stores
/// ciphertext there and reads back as plaintext; a patch inside a cell, or of the id or partition key of a bound
/// document, is refused before anything is sent; a patch whose encrypted form exceeds the service's ten operations is
/// applied as a conditional replace, which a concurrent writer makes start over without losing either update.
/// </summary>
public sealed class NestedPatchTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static readonly PartitionKey s_pk = new("p1");

    public static TheoryData<JsonProcessor, bool> ProcessorsAndBinding => new()
    {
        { JsonProcessor.Stream, true }, { JsonProcessor.Newtonsoft, true }, { JsonProcessor.Stream, false }, { JsonProcessor.Newtonsoft, false },
    };

    [Theory]
    [MemberData(nameof(ProcessorsAndBinding))]
    public async Task PatchOfNestedLeaves_ReadsAsPlaintext_AndIsStoredAsCipherText(JsonProcessor processor, bool bind)
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: Bound(processor, bind: bind), cancellationToken: Ct);
        await container.CreateItemAsync(Customer("c1"), s_pk, cancellationToken: Ct);
        JObject before = await RawDocuments.ReadAsync(raw, "c1", s_pk, Ct);

        ItemResponse<JObject> patched = await container.PatchItemAsync<JObject>("c1", s_pk,
            [PatchOperation.Set("/address/city", "SECRET-Lyon"), PatchOperation.Replace("/cards/1/number", "SECRET-9999"), PatchOperation.Set("/ssn", "SECRET-new"), PatchOperation.Set("/name", "Ada L.")],
            cancellationToken: Ct);

        Assert.Equal("SECRET-Lyon", (string?)patched.Resource["address"]!["city"]);
        JObject read = await ReadAsync(container, "c1");
        Assert.Equal("SECRET-Lyon", (string?)read["address"]!["city"]);
        Assert.Equal("SECRET-9999", (string?)read["cards"]![1]!["number"]);
        Assert.Equal("SECRET-4111", (string?)read["cards"]![0]!["number"]);
        Assert.Equal("SECRET-new", (string?)read["ssn"]);
        Assert.Equal("Ada L.", (string?)read["name"]);
        JObject stored = await AssertStoredEncryptedAsync(raw, "c1");
        Assert.NotEqual((string?)before["address"]!["city"], (string?)stored["address"]!["city"]);
        Assert.Equal("1 Main St", (string?)stored["address"]!["street"]);
        Assert.Equal((string?)before["cards"]![0]!["number"], (string?)stored["cards"]![0]!["number"]);
        Assert.Equal(["/_ex", "/ssn", "/address/city", "/cards/[]/number"], stored["_ei"]!["_ep"]!.Select(p => (string)p!));
    }

    [Theory]
    [MemberData(nameof(ProcessorsAndBinding))]
    public async Task PatchOfAncestors_EncryptsTheSelectedValuesInside(JsonProcessor processor, bool bind)
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: Bound(processor, bind: bind), cancellationToken: Ct);
        await container.CreateItemAsync(Customer("c1"), s_pk, cancellationToken: Ct);

        await container.PatchItemAsync<JObject>("c1", s_pk,
        [
            PatchOperation.Set("/address", new { street = "2 Side St", city = "SECRET-Rome" }),
            PatchOperation.Add("/cards/-", new { number = "SECRET-3700", expiry = "03/33" }),
            PatchOperation.Set("/cards/0", new { number = "SECRET-6011", expiry = "04/34" }),
        ], cancellationToken: Ct);

        JObject read = await ReadAsync(container, "c1");
        Assert.Equal("SECRET-Rome", (string?)read["address"]!["city"]);
        Assert.Equal("2 Side St", (string?)read["address"]!["street"]);
        Assert.Equal(["SECRET-6011", "SECRET-5500", "SECRET-3700"], read["cards"]!.Select(c => (string)c["number"]!));
        Assert.Equal("03/33", (string?)read["cards"]![2]!["expiry"]);
        JObject stored = await AssertStoredEncryptedAsync(raw, "c1");
        Assert.Equal("2 Side St", (string?)stored["address"]!["street"]);
        Assert.Equal("04/34", (string?)stored["cards"]![0]!["expiry"]);
    }

    [Fact]
    public async Task PatchInsideACell_OrOfABoundId_IsRefusedBeforeSending()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: Bound(JsonProcessor.Stream), cancellationToken: Ct);
        await container.CreateItemAsync(Customer("c1"), s_pk, cancellationToken: Ct);
        string etag = (await RawDocuments.ReadAsync(raw, "c1", s_pk, Ct))["_etag"]!.ToString();

        foreach ((PatchOperation operation, string why) in new[]
        {
            (PatchOperation.Set("/address/city/first", "SECRET-x"), "inside the value selected by '/address/city'"),
            (PatchOperation.Set("/cards/0/Number", "SECRET-x"), "only when case is ignored"),
            (PatchOperation.Increment("/cards/0/number", 1), "increments"),
            (PatchOperation.Set("/id", "c2"), "bound"),
            (PatchOperation.Replace("/pk", "p2"), "bound"),
            (PatchOperation.Remove("/id"), "bound"),
        })
        {
            EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => container.PatchItemAsync<JObject>("c1", s_pk, [operation], cancellationToken: Ct));
            Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
            Assert.Contains(why, error.Message, StringComparison.Ordinal);
            Assert.DoesNotContain("SECRET", error.ToString(), StringComparison.Ordinal);
        }

        Assert.Equal(etag, (await RawDocuments.ReadAsync(raw, "c1", s_pk, Ct))["_etag"]!.ToString());
    }

    private static PatchOperation[] ElevenOperations() =>
    [
        .. Enumerable.Range(0, 9).Select(i => PatchOperation.Set($"/extra{i}", i)),
        PatchOperation.Set("/address/city", "SECRET-Oslo"),
        PatchOperation.Add("/cards/-", new { number = "SECRET-3700", expiry = "03/33" }),
        PatchOperation.Increment("/visits", 1),
    ];

    [Theory]
    [MemberData(nameof(ProcessorsAndBinding))]
    public async Task MoreOperationsThanAPatchHolds_AreAppliedAsAConditionalReplace(JsonProcessor processor, bool bind)
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: Bound(processor, bind: bind), cancellationToken: Ct);
        await container.CreateItemAsync(Customer("c1"), s_pk, cancellationToken: Ct);

        ItemResponse<JObject> response = await container.PatchItemAsync<JObject>("c1", s_pk, ElevenOperations(), cancellationToken: Ct);

        Assert.Equal("SECRET-Oslo", (string?)response.Resource["address"]!["city"]);
        JObject read = await ReadAsync(container, "c1");
        Assert.Equal("SECRET-Oslo", (string?)read["address"]!["city"]);
        Assert.Equal(8, (int)read["extra8"]!);
        Assert.Equal(1, (int)read["visits"]!);
        Assert.Equal(["SECRET-4111", "SECRET-5500", "SECRET-3700"], read["cards"]!.Select(c => (string)c["number"]!));
        await AssertStoredEncryptedAsync(raw, "c1");

        // Turned off, the same patch is refused and nothing is written.
        Container strict = raw.WithEncryptor(fixture.Encryptor, Bound(processor, fallback: false, bind: bind));
        EncryptionException refused = await Assert.ThrowsAsync<EncryptionException>(() => strict.PatchItemAsync<JObject>("c1", s_pk, ElevenOperations(), cancellationToken: Ct));
        Assert.Contains("PatchFallbackToReplace", refused.Message, StringComparison.Ordinal);
        Assert.Equal(1, (int)(await ReadAsync(container, "c1"))["visits"]!);
    }

    [Fact]
    public async Task AConcurrentWriterBetweenReadAndReplace_CausesARetry_AndNoUpdateIsLost()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: Bound(JsonProcessor.Stream), cancellationToken: Ct);
        await container.CreateItemAsync(Customer("c1"), s_pk, cancellationToken: Ct);

        // The first replace this client sends lets another writer patch the document first, so its ETag is stale.
        var interloper = new WriterBeforeFirstReplace(() => container.PatchItemAsync<JObject>("c1", s_pk, [PatchOperation.Set("/name", "Concurrent"), PatchOperation.Set("/ssn", "SECRET-other")], cancellationToken: Ct));
        using CosmosClient client = fixture.Endpoint.CreateClient(options => options.CustomHandlers.Add(interloper));
        Container racing = client.GetContainer(fixture.Database.Id, raw.Id).WithEncryptor(fixture.Encryptor, Bound(JsonProcessor.Stream));

        await racing.PatchItemAsync<JObject>("c1", s_pk, ElevenOperations(), cancellationToken: Ct);

        Assert.Equal(2, interloper.Replaces);
        Assert.Equal(System.Net.HttpStatusCode.PreconditionFailed, interloper.FirstStatus);
        JObject read = await ReadAsync(container, "c1");
        Assert.Equal("Concurrent", (string?)read["name"]);
        Assert.Equal("SECRET-other", (string?)read["ssn"]);
        Assert.Equal("SECRET-Oslo", (string?)read["address"]!["city"]);
        Assert.Equal(3, read["cards"]!.Count());
        await AssertStoredEncryptedAsync(raw, "c1");
    }

    [Fact]
    public async Task AWriterBeforeEveryReplace_ExhaustsTheAttempts_WithAClearConflictAndNothingWritten()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: Bound(JsonProcessor.Stream), cancellationToken: Ct);
        await container.CreateItemAsync(Customer("c1"), s_pk, cancellationToken: Ct);
        int writes = 0;
        var interloper = new WriterBeforeFirstReplace(() => container.PatchItemAsync<JObject>("c1", s_pk, [PatchOperation.Set("/name", $"Concurrent {++writes}")], cancellationToken: Ct), everyReplace: true);
        using CosmosClient client = fixture.Endpoint.CreateClient(options => options.CustomHandlers.Add(interloper));
        Container racing = client.GetContainer(fixture.Database.Id, raw.Id).WithEncryptor(fixture.Encryptor, Bound(JsonProcessor.Stream));

        CosmosException conflict = await Assert.ThrowsAsync<CosmosException>(() => racing.PatchItemAsync<JObject>("c1", s_pk, ElevenOperations(), cancellationToken: Ct));

        Assert.Equal(System.Net.HttpStatusCode.PreconditionFailed, conflict.StatusCode);
        Assert.Contains("changed between the read and the replace on each of 3 attempts", conflict.Message, StringComparison.Ordinal);
        Assert.Equal(EncryptionContainerOptions.DefaultPatchMaxAttempts, interloper.Replaces);
        JObject read = await ReadAsync(container, "c1");
        Assert.Equal("Concurrent 3", (string?)read["name"]);
        Assert.Equal("SECRET-Paris", (string?)read["address"]!["city"]);
        Assert.Null(read["visits"]);
    }

    /// <summary>Runs a write through another client before the first document replace it sees (or every one), and records what the replaces got.</summary>
    private sealed class WriterBeforeFirstReplace(Func<Task> write, bool everyReplace = false) : RequestHandler
    {
        private int _replaces;

        public int Replaces => Volatile.Read(ref _replaces);

        public System.Net.HttpStatusCode? FirstStatus { get; private set; }

        public override async Task<ResponseMessage> SendAsync(RequestMessage request, CancellationToken cancellationToken)
        {
            bool replace = request.Method == HttpMethod.Put && request.RequestUri.OriginalString.Contains("/docs/", StringComparison.Ordinal);
            if (replace && (Interlocked.Increment(ref _replaces) == 1 || everyReplace))
            {
                await write();
            }

            ResponseMessage response = await base.SendAsync(request, cancellationToken);
            if (replace && FirstStatus is null)
            {
                FirstStatus = response.StatusCode;
            }

            return response;
        }
    }
}

using Encryption.Custom.Cosmos;
using Encryption.Custom.Tests.Cosmos.TestSupport;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Cosmos.Batch;

/// <summary>
/// Patches inside a transactional batch under a format 101 policy (nested selectors, binding), at the container seam:
/// classified and rewritten as a single patch is (a selected value becomes its cell, an ancestor's selected values
/// are encrypted inside it, elsewhere passes), and what a single patch would refuse, or apply as a conditional
/// replace, is refused before the batch is sent: nothing reaches the inner batch.
/// </summary>
public sealed class NestedBatchPatchTests : IDisposable
{
    private const string Customer = """
        {"id":"c1","pk":"p0","name":"Ada","ssn":"SECRET-ssn","address":{"street":"1 Main St","city":"SECRET-Paris"},
         "cards":[{"number":"SECRET-4111","expiry":"12/30"}]}
        """;

    private readonly EncryptionSetup _setup;

    public NestedBatchPatchTests()
    {
        _setup = new EncryptionSetup(Options(bind: true));
    }

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static EncryptionContainerOptions Options(bool bind) => new()
    {
        PatchMaxAttempts = 3,
        Policy = new ContainerEncryptionPolicy(EncryptionSetup.Dek1, ["/ssn", "/address/city", "/cards/[]/number"]) { Bind = bind },
    };

    public void Dispose() => _setup.Dispose();

    private async Task CreateAsync(EncryptionSetup setup, string json)
    {
        using ResponseMessage response = await setup.Container.CreateItemStreamAsync(EncryptionSetup.ToStream(json), EncryptionSetup.P0, cancellationToken: Ct);
        response.EnsureSuccessStatusCode();
    }

    private static string Sent(IReadOnlyList<PatchOperation> operations) =>
        string.Join("\n", operations.Select(o => o.Path + " " + (o.TrySerializeValueParameter(new Encryption.Custom.Cosmos.Serialization.NewtonsoftItemSerializer(null), out Stream? s) && s is not null ? new StreamReader(s).ReadToEnd() : "")));

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task LeafAndAncestorPatches_AreSentEncrypted_AndReadBackAsPlaintext(bool bind)
    {
        using var setup = new EncryptionSetup(Options(bind));
        await CreateAsync(setup, Customer);
        await CreateAsync(setup, Customer.Replace("\"c1\"", "\"c2\"", StringComparison.Ordinal));

        using TransactionalBatchResponse response = await setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .PatchItem("c1", [PatchOperation.Set("/address/city", "SECRET-Lyon"), PatchOperation.Set("/name", "Ada L.")])
            .PatchItem("c2", [PatchOperation.Set("/address", new { street = "2 Side St", city = "SECRET-Rome" })])
            .ExecuteAsync(Ct);

        Assert.True(response.IsSuccessStatusCode, response.ErrorMessage);
        (IReadOnlyList<PatchOperation> Operations, string? IfMatch)[] sent = [.. setup.Inner.ReceivedPatches];
        Assert.Equal(2, sent.Length);
        Assert.All(sent, patch => Assert.NotNull(patch.IfMatch));
        Assert.DoesNotContain("SECRET", Sent(sent[0].Operations), StringComparison.Ordinal);
        Assert.Contains("Ada L.", Sent(sent[0].Operations), StringComparison.Ordinal);

        // The ancestor's value is a stream the inner batch consumed: what it stored is checked instead.
        Assert.Equal("/address", Assert.Single(sent[1].Operations).Path);

        Assert.Equal("SECRET-Lyon", (string?)EncryptionSetup.ReadJson(response[0].ResourceStream)["address"]!["city"]);
        Assert.Equal("SECRET-Lyon", (string?)(await setup.ReadDecryptedAsync("c1"))["address"]!["city"]);
        JObject c2 = await setup.ReadDecryptedAsync("c2");
        Assert.Equal("SECRET-Rome", (string?)c2["address"]!["city"]);
        Assert.Equal("2 Side St", (string?)c2["address"]!["street"]);
        Assert.DoesNotContain("SECRET", setup.Inner.Get("c2", EncryptionSetup.P0)!.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task PatchAfterACreateInTheSameBatch_IsRewrittenAgainstThatBody()
    {
        using TransactionalBatchResponse response = await _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .CreateItemStream(EncryptionSetup.ToStream(Customer))
            .PatchItem("c1", [PatchOperation.Set("/address/city", "SECRET-Lyon")])
            .ExecuteAsync(Ct);

        Assert.True(response.IsSuccessStatusCode, response.ErrorMessage);
        Assert.DoesNotContain("SECRET", Sent(Assert.Single(_setup.Inner.ReceivedPatches).Operations), StringComparison.Ordinal);
        Assert.Equal("SECRET-Lyon", (string?)(await _setup.ReadDecryptedAsync("c1"))["address"]!["city"]);
    }

    [Fact]
    public async Task DocumentChangedBetweenReadAndBatch_IsReadAndRewrittenAgain()
    {
        await CreateAsync(_setup, Customer);
        int interferences = 0;
        _setup.Inner.BeforePatch = _ =>
        {
            if (interferences++ == 0)
            {
                // Another writer changes the document after the batch read it.
                JObject current = _setup.Inner.Get("c1", EncryptionSetup.P0)!;
                current["other"] = "change";
                _setup.Inner.Put(current, EncryptionSetup.P0);
            }
        };

        using TransactionalBatchResponse response = await _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .PatchItem("c1", [PatchOperation.Set("/address", new { street = "2 Side St", city = "SECRET-Rome" })])
            .ExecuteAsync(Ct);

        Assert.True(response.IsSuccessStatusCode, response.ErrorMessage);
        Assert.Equal(2, _setup.Inner.ExecutedBatches.Count);
        JObject read = await _setup.ReadDecryptedAsync("c1");
        Assert.Equal("SECRET-Rome", (string?)read["address"]!["city"]);
        Assert.Equal("change", (string?)read["other"]);
        Assert.DoesNotContain("SECRET", _setup.Inner.Get("c1", EncryptionSetup.P0)!.ToString(), StringComparison.Ordinal);
    }

    public static TheoryData<string, string> RefusedByTheClassifier => new()
    {
        { "/address/city/first", "inside the value selected by '/address/city'" },
        { "/cards/0/Number", "only when case is ignored" },
        { "/id", "bound" },
        { "/pk", "bound" },
    };

    [Theory]
    [MemberData(nameof(RefusedByTheClassifier))]
    public async Task WhatTheClassifierRefuses_IsRefusedBeforeTheBatchIsSent(string path, string why)
    {
        await CreateAsync(_setup, Customer);

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .UpsertItemStream(EncryptionSetup.ToStream("""{"id":"other","pk":"p0","ssn":"SECRET-2"}"""))
            .PatchItem("c1", [PatchOperation.Set(path, "SECRET-x")])
            .ExecuteAsync(Ct));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Contains(why, error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("SECRET", error.ToString(), StringComparison.Ordinal);
        Assert.Empty(_setup.Inner.ExecutedBatches);
        Assert.Null(_setup.Inner.Get("other", EncryptionSetup.P0));
    }

    [Fact]
    public async Task IncrementOfASelectedValue_IsRefusedBeforeAnythingIsRead()
    {
        await CreateAsync(_setup, Customer);
        int reads = _setup.Inner.ReadItemCount;

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .PatchItem("c1", [PatchOperation.Increment("/cards/0/number", 1)])
            .ExecuteAsync(Ct));

        Assert.Contains("increments", error.Message, StringComparison.Ordinal);
        Assert.Equal(reads, _setup.Inner.ReadItemCount);
        Assert.Empty(_setup.Inner.ExecutedBatches);
    }

    public static TheoryData<string, string> NeedingAReplace => new()
    {
        { "eleven", "more than the 10" },
        { "move", "carries encrypted values" },
        { "plain", "not encrypted yet" },
    };

    [Theory]
    [MemberData(nameof(NeedingAReplace))]
    public async Task WhatASinglePatchWouldReplace_IsRefusedBeforeTheBatchIsSent_NamingTheOperation(string kind, string why)
    {
        if (kind == "plain")
        {
            // Written before the policy: not encrypted, so a patch cannot add the format 101 metadata.
            _setup.Inner.Put(JObject.Parse(Customer.Replace("SECRET-Paris", "Paris", StringComparison.Ordinal)), EncryptionSetup.P0);
        }
        else
        {
            await CreateAsync(_setup, Customer);
        }

        PatchOperation[] operations = kind switch
        {
            "eleven" => [.. Enumerable.Range(0, 9).Select(i => PatchOperation.Set($"/extra{i}", i)), PatchOperation.Set("/address/city", "SECRET-Oslo"), PatchOperation.Set("/ssn", "SECRET-new")],
            "move" => [PatchOperation.Move("/address/city", "/town")],
            _ => [PatchOperation.Set("/address/city", "SECRET-Oslo")],
        };

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .ReadItem("c1")
            .PatchItem("c1", operations)
            .ExecuteAsync(Ct));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Contains("operation 1 of the transactional batch", error.Message, StringComparison.Ordinal);
        Assert.Contains(why, error.Message, StringComparison.Ordinal);
        Assert.Contains("single PatchItemAsync would apply it", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("SECRET", error.ToString(), StringComparison.Ordinal);
        Assert.Empty(_setup.Inner.ExecutedBatches);
    }

    [Fact]
    public async Task EncryptedWriteAfterADeleteOrPatchOfTheSameDocument_IsRefused_ButPlainOperationsPass()
    {
        await CreateAsync(_setup, Customer);

        EncryptionException afterDelete = await Assert.ThrowsAsync<EncryptionException>(() => _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .DeleteItem("c1")
            .PatchItem("c1", [PatchOperation.Set("/ssn", "SECRET-x")])
            .ExecuteAsync(Ct));
        EncryptionException afterPatch = await Assert.ThrowsAsync<EncryptionException>(() => _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .PatchItem("c1", [PatchOperation.Set("/name", "Ada L.")])
            .PatchItem("c1", [PatchOperation.Set("/ssn", "SECRET-x")])
            .ExecuteAsync(Ct));
        Assert.Contains("deletes that document", afterDelete.Message, StringComparison.Ordinal);
        Assert.Contains("earlier patch", afterPatch.Message, StringComparison.Ordinal);
        Assert.Empty(_setup.Inner.ExecutedBatches);

        using TransactionalBatchResponse response = await _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .PatchItem("c1", [PatchOperation.Set("/name", "Ada L.")])
            .PatchItem("c1", [PatchOperation.Set("/address/street", "3 Low St")])
            .ExecuteAsync(Ct);
        Assert.True(response.IsSuccessStatusCode, response.ErrorMessage);
        Assert.Equal("3 Low St", (string?)(await _setup.ReadDecryptedAsync("c1"))["address"]!["street"]);
    }
}

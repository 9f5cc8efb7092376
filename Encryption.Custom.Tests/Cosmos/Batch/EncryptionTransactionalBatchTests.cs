using System.Net;
using Encryption.Custom.Cosmos;
using Encryption.Custom.Tests.Cosmos.TestSupport;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Cosmos.Batch;

/// <summary>The encryption transactional batch at its seam: what reaches the inner batch, and what comes back.</summary>
public sealed class EncryptionTransactionalBatchTests : IDisposable
{
    private readonly EncryptionSetup _setup = new(new EncryptionContainerOptions { PatchMaxAttempts = 3 });

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static EncryptionTransactionalBatchItemRequestOptions EncryptSsn(string dek = EncryptionSetup.Dek1) =>
        new() { EncryptionOptions = EncryptionSetup.Options(dek, "/ssn", "/salary") };

    public void Dispose() => _setup.Dispose();

    [Fact]
    public async Task Execute_SeekablePayloadPositionedAtItsEnd_IsEncryptedWhole()
    {
        MemoryStream payload = EncryptionSetup.ToStream("""{"id":"end","pk":"p0","ssn":"444","salary":5}""");
        payload.Seek(0, SeekOrigin.End);

        using TransactionalBatchResponse response = await _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .CreateItemStream(payload, EncryptSsn())
            .ExecuteAsync(Ct);

        Assert.True(response.IsSuccessStatusCode, response.ErrorMessage);
        Assert.NotEqual("444", (string?)Assert.Single(_setup.Inner.ReceivedBodies)["ssn"]);
        Assert.Equal("444", (string?)EncryptionSetup.ReadJson(response[0].ResourceStream)["ssn"]);
    }

    [Fact]
    public async Task Execute_CreateWithEncryptionOptions_SendsCiphertextAndReturnsPlaintext()
    {
        using TransactionalBatchResponse response = await _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .CreateItem(new Person("a", "p0", "111-22-3333", 10), EncryptSsn())
            .CreateItemStream(EncryptionSetup.ToStream("""{"id":"b","pk":"p0","ssn":"444","salary":5}"""), EncryptSsn(EncryptionSetup.Dek2))
            .ExecuteAsync(Ct);

        Assert.True(response.IsSuccessStatusCode);
        JObject[] sent = [.. _setup.Inner.ReceivedBodies];
        Assert.Equal(2, sent.Length);
        Assert.NotEqual("111-22-3333", (string?)sent[0]["ssn"]);
        Assert.Equal(JTokenType.String, sent[0]["salary"]!.Type);
        Assert.Equal(EncryptionSetup.Dek1, (string?)sent[0]["_ei"]!["_en"]);
        Assert.Equal(EncryptionSetup.Dek2, (string?)sent[1]["_ei"]!["_en"]);
        Assert.Equal(new Person("a", "p0", "111-22-3333", 10), response.GetOperationResultAtIndex<Person>(0).Resource);
        JObject second = EncryptionSetup.ReadJson(response[1].ResourceStream);
        Assert.Equal("444", (string?)second["ssn"]);
        Assert.Null(second["_ei"]);

        // The result stream stays readable after typed access (a view is deserialized).
        Assert.Equal(new Person("b", "p0", "444", 5), response.GetOperationResultAtIndex<Person>(1).Resource);
    }

    [Fact]
    public async Task Execute_ReadAndUpsertAndReplace_DecryptResultsAndEncryptBodies()
    {
        await _setup.CreateEncryptedAsync("""{"id":"r","pk":"p0","ssn":"stored","salary":1}""", EncryptionSetup.Dek1, "/ssn");

        using TransactionalBatchResponse response = await _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .ReadItem("r")
            .UpsertItem(new Person("u", "p0", "up", 2), EncryptSsn())
            .ReplaceItem("r", new Person("r", "p0", "replaced", 3), EncryptSsn())
            .DeleteItem("u")
            .ExecuteAsync(Ct);

        Assert.True(response.IsSuccessStatusCode);
        Assert.Equal("stored", response.GetOperationResultAtIndex<Person>(0).Resource.Ssn);
        Assert.Equal("replaced", response.GetOperationResultAtIndex<Person>(2).Resource.Ssn);
        Assert.All(_setup.Inner.ReceivedBodies, body => Assert.NotNull(body["_ei"]));
        JObject stored = _setup.Inner.Get("r", EncryptionSetup.P0)!;
        Assert.NotEqual("replaced", (string?)stored["ssn"]);
        Assert.Null(_setup.Inner.Get("u", EncryptionSetup.P0));
    }

    [Fact]
    public async Task Execute_PatchOnEncryptedDocument_SendsCiphertextWithTheReadEtag()
    {
        await _setup.CreateEncryptedAsync("""{"id":"p","pk":"p0","ssn":"old","salary":1}""", EncryptionSetup.Dek2, "/ssn", "/salary");
        string etag = (string)_setup.Inner.Get("p", EncryptionSetup.P0)!["_etag"]!;

        using TransactionalBatchResponse response = await _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .PatchItem("p", [PatchOperation.Set("/ssn", "new"), PatchOperation.Set("/name", "plain")])
            .ExecuteAsync(Ct);

        Assert.True(response.IsSuccessStatusCode);
        (IReadOnlyList<PatchOperation> operations, string? ifMatch) = Assert.Single(_setup.Inner.ReceivedPatches);
        Assert.Equal(etag, ifMatch);
        Assert.Equal(["/ssn", "/name"], operations.Select(o => o.Path));
        JObject stored = _setup.Inner.Get("p", EncryptionSetup.P0)!;
        Assert.NotEqual("new", (string?)stored["ssn"]);
        Assert.Equal("plain", (string?)stored["name"]);
        Assert.Equal("new", response.GetOperationResultAtIndex<Person>(0).Resource.Ssn);
        Assert.Equal("new", (string?)(await _setup.ReadDecryptedAsync("p"))["ssn"]);
    }

    [Fact]
    public async Task Execute_PatchAfterCreateOfTheSameDocument_UsesTheCreatedMetadataWithoutReading()
    {
        using TransactionalBatchResponse response = await _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .CreateItem(new Person("n", "p0", "first", 1), EncryptSsn(EncryptionSetup.Dek2))
            .PatchItem("n", [PatchOperation.Set("/ssn", "second")])
            .ExecuteAsync(Ct);

        Assert.True(response.IsSuccessStatusCode);
        Assert.Equal(0, _setup.Inner.ReadItemCount);
        (_, string? ifMatch) = Assert.Single(_setup.Inner.ReceivedPatches);
        Assert.Null(ifMatch);
        JObject stored = _setup.Inner.Get("n", EncryptionSetup.P0)!;
        Assert.NotEqual("second", (string?)stored["ssn"]);
        Assert.Equal(EncryptionSetup.Dek2, (string?)stored["_ei"]!["_en"]);
        Assert.Equal("second", (string?)(await _setup.ReadDecryptedAsync("n"))["ssn"]);
    }

    [Fact]
    public async Task Execute_DocumentChangedBetweenReadAndPatch_RetriesWithTheSameEncryptedBodies()
    {
        await _setup.CreateEncryptedAsync("""{"id":"c","pk":"p0","ssn":"old"}""", EncryptionSetup.Dek1, "/ssn");
        int interferences = 0;
        _setup.Inner.BeforePatch = _ =>
        {
            if (interferences++ == 0)
            {
                // Another writer replaces the document after the batch read its metadata.
                JObject current = _setup.Inner.Get("c", EncryptionSetup.P0)!;
                current["other"] = "change";
                _setup.Inner.Put(current, EncryptionSetup.P0);
            }
        };
        int lookupsBefore = _setup.Encryptor.Lookups;

        using TransactionalBatchResponse response = await _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .CreateItem(new Person("d", "p0", "secret", 1), EncryptSsn())
            .PatchItem("c", [PatchOperation.Set("/ssn", "patched")])
            .ExecuteAsync(Ct);

        Assert.True(response.IsSuccessStatusCode);
        Assert.Equal(2, _setup.Inner.ExecutedBatches.Count);
        JObject[] createBodies = [.. _setup.Inner.ReceivedBodies.Where(b => (string?)b["id"] == "d")];
        Assert.Equal(2, createBodies.Length);
        Assert.Equal(createBodies[0].ToString(), createBodies[1].ToString());
        Assert.Equal(2, _setup.Inner.ReadItemCount);
        JObject stored = _setup.Inner.Get("c", EncryptionSetup.P0)!;
        Assert.Equal("change", (string?)stored["other"]);
        Assert.Equal("patched", (string?)(await _setup.ReadDecryptedAsync("c"))["ssn"]);
        Assert.True(_setup.Encryptor.Lookups - lookupsBefore >= 3);
    }

    [Fact]
    public async Task Execute_CallerEtagFails_ReturnsPreconditionFailedWithoutRetry()
    {
        await _setup.CreateEncryptedAsync("""{"id":"e","pk":"p0","ssn":"old"}""", EncryptionSetup.Dek1, "/ssn");

        using TransactionalBatchResponse response = await _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .PatchItem("e", [PatchOperation.Set("/ssn", "x")], new TransactionalBatchPatchItemRequestOptions { IfMatchEtag = "\"stale\"" })
            .ExecuteAsync(Ct);

        Assert.Equal(HttpStatusCode.PreconditionFailed, response.StatusCode);
        Assert.Equal(HttpStatusCode.PreconditionFailed, response[0].StatusCode);
        Assert.Single(_setup.Inner.ExecutedBatches);
    }

    [Fact]
    public async Task Execute_IncrementOnEncryptedPath_IsRejectedBeforeAnythingIsSent()
    {
        TransactionalBatchPatchItemRequestOptions options = new TransactionalBatchPatchItemRequestOptions()
            .WithEncryptionOptions(EncryptionSetup.Options(EncryptionSetup.Dek1, "/salary"));

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .CreateItem(new Person("x", "p0", "s", 1), EncryptSsn())
            .PatchItem("x", [PatchOperation.Increment("/salary", 1)], options)
            .ExecuteAsync(Ct));

        Assert.Equal("/salary", error.Path);
        Assert.Empty(_setup.Inner.ExecutedBatches);
        Assert.Empty(_setup.Inner.ReceivedBodies);
    }

    [Fact]
    public async Task Execute_EncryptingThePartitionKey_IsRejectedBeforeAnythingIsSent()
    {
        var options = new EncryptionTransactionalBatchItemRequestOptions { EncryptionOptions = EncryptionSetup.Options(EncryptionSetup.Dek1, "/pk") };

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .CreateItem(new Person("x", "p0", "s", 1), options)
            .ExecuteAsync(Ct));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Equal("/pk", error.Path);
        Assert.Empty(_setup.Inner.ExecutedBatches);
    }

    [Fact]
    public async Task Execute_OneOperationFails_CommitsNothingAndReportsTheFailure()
    {
        await _setup.CreateEncryptedAsync("""{"id":"dup","pk":"p0","ssn":"old"}""", EncryptionSetup.Dek1, "/ssn");

        using TransactionalBatchResponse response = await _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .CreateItem(new Person("fresh", "p0", "s", 1), EncryptSsn())
            .CreateItem(new Person("dup", "p0", "s", 1), EncryptSsn())
            .ExecuteAsync(Ct);

        Assert.False(response.IsSuccessStatusCode);
        Assert.Equal(HttpStatusCode.Conflict, response[1].StatusCode);
        Assert.Equal(HttpStatusCode.FailedDependency, response[0].StatusCode);
        Assert.Null(_setup.Inner.Get("fresh", EncryptionSetup.P0));
    }

    [Fact]
    public async Task Execute_TamperedReadResult_ThrowsEncryptionException()
    {
        await _setup.CreateEncryptedAsync("""{"id":"t","pk":"p0","ssn":"stored"}""", EncryptionSetup.Dek1, "/ssn");
        JObject stored = _setup.Inner.Get("t", EncryptionSetup.P0)!;
        char[] value = ((string)stored["ssn"]!).ToCharArray();
        value[10] = value[10] == 'A' ? 'B' : 'A';
        stored["ssn"] = new string(value);
        _setup.Inner.Put(stored, EncryptionSetup.P0);

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0).ReadItem("t").ExecuteAsync(Ct));

        Assert.Equal(EncryptionErrorKind.InvalidCipherText, error.Kind);
        Assert.Equal("/ssn", error.Path);
        Assert.Equal(EncryptionSetup.Dek1, error.DataEncryptionKeyId);
    }

    public sealed record Person(
        [property: Newtonsoft.Json.JsonProperty("id")] string Id,
        [property: Newtonsoft.Json.JsonProperty("pk")] string Pk,
        [property: Newtonsoft.Json.JsonProperty("ssn")] string Ssn,
        [property: Newtonsoft.Json.JsonProperty("salary")] long Salary);
}

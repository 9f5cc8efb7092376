using System.Net;
using Encryption.Custom.Cosmos;
using Encryption.Custom.Tests.Cosmos.TestSupport;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Cosmos;

/// <summary>The container's patch loop at its seam: conditional patch, retries on a changed document, bounds.</summary>
public sealed class PatchTests : IDisposable
{
    private readonly EncryptionSetup _setup = new(new EncryptionContainerOptions { PatchMaxAttempts = 3 });

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public void Dispose() => _setup.Dispose();

    private void ChangeDocumentBeforeEachPatch(int times, Action<JObject>? change = null)
    {
        int count = 0;
        _setup.Inner.BeforePatch = id =>
        {
            if (count++ < times)
            {
                JObject current = _setup.Inner.Get(id, EncryptionSetup.P0)!;
                current["touched"] = count;
                change?.Invoke(current);
                _setup.Inner.Put(current, EncryptionSetup.P0);
            }
        };
    }

    [Fact]
    public async Task Patch_DocumentChangedOnce_RereadsAndSucceeds()
    {
        await _setup.CreateEncryptedAsync("""{"id":"a","pk":"p0","ssn":"old"}""", EncryptionSetup.Dek1, "/ssn");
        ChangeDocumentBeforeEachPatch(1);

        using ResponseMessage response = await _setup.Container.PatchItemStreamAsync("a", EncryptionSetup.P0, [PatchOperation.Set("/ssn", "new")], cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(2, _setup.Inner.ReceivedPatches.Count);
        Assert.All(_setup.Inner.ReceivedPatches, p => Assert.NotNull(p.IfMatch));
        JObject decrypted = await _setup.ReadDecryptedAsync("a");
        Assert.Equal(("new", 1), ((string?)decrypted["ssn"], (int)decrypted["touched"]!));
    }

    [Fact]
    public async Task Patch_MetadataChangedMeanwhile_UsesTheNewMetadata()
    {
        // Between the first read and the patch, another writer re-encrypts the document with another key.
        await _setup.CreateEncryptedAsync("""{"id":"m","pk":"p0","ssn":"old","extra":"e"}""", EncryptionSetup.Dek1, "/ssn");
        int count = 0;
        _setup.Inner.BeforePatch = _ =>
        {
            if (count++ == 0)
            {
                using ResponseMessage replaced = _setup.Container.ReplaceItemStreamAsync(
                    EncryptionSetup.ToStream("""{"id":"m","pk":"p0","ssn":"other","extra":"e2"}"""), "m", EncryptionSetup.P0, EncryptionSetup.Encrypt(EncryptionSetup.Dek2, "/ssn", "/extra"), Ct).GetAwaiter().GetResult();
            }
        };

        using ResponseMessage response = await _setup.Container.PatchItemStreamAsync("m", EncryptionSetup.P0, [PatchOperation.Set("/extra", "patched")], cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        JObject stored = _setup.Inner.Get("m", EncryptionSetup.P0)!;
        Assert.Equal(EncryptionSetup.Dek2, (string?)stored["_ei"]!["_en"]);
        Assert.NotEqual("patched", (string?)stored["extra"]);
        JObject decrypted = await _setup.ReadDecryptedAsync("m");
        Assert.Equal(("other", "patched"), ((string?)decrypted["ssn"], (string?)decrypted["extra"]));
    }

    [Fact]
    public async Task Patch_DocumentKeepsChanging_GivesUpAfterTheConfiguredAttempts()
    {
        await _setup.CreateEncryptedAsync("""{"id":"b","pk":"p0","ssn":"old"}""", EncryptionSetup.Dek1, "/ssn");
        ChangeDocumentBeforeEachPatch(int.MaxValue);

        using ResponseMessage response = await _setup.Container.PatchItemStreamAsync("b", EncryptionSetup.P0, [PatchOperation.Set("/ssn", "new")], cancellationToken: Ct);
        CosmosException error = await Assert.ThrowsAsync<CosmosException>(() =>
            _setup.Container.PatchItemAsync<JObject>("b", EncryptionSetup.P0, [PatchOperation.Set("/ssn", "new")], cancellationToken: Ct));

        Assert.Equal(HttpStatusCode.PreconditionFailed, response.StatusCode);
        Assert.Equal(HttpStatusCode.PreconditionFailed, error.StatusCode);
        Assert.Equal(6, _setup.Inner.ReceivedPatches.Count);
    }

    [Fact]
    public async Task Patch_CallerEtag_IsSentAsGivenAndNotRetried()
    {
        await _setup.CreateEncryptedAsync("""{"id":"c","pk":"p0","ssn":"old"}""", EncryptionSetup.Dek1, "/ssn");
        ChangeDocumentBeforeEachPatch(1);

        using ResponseMessage response = await _setup.Container.PatchItemStreamAsync(
            "c", EncryptionSetup.P0, [PatchOperation.Set("/ssn", "new")], new PatchItemRequestOptions { IfMatchEtag = "\"mine\"" }, Ct);

        Assert.Equal(HttpStatusCode.PreconditionFailed, response.StatusCode);
        (_, string? ifMatch) = Assert.Single(_setup.Inner.ReceivedPatches);
        Assert.Equal("\"mine\"", ifMatch);
    }

    [Fact]
    public async Task Patch_SharedOptionsObject_IsNeverModified()
    {
        await _setup.CreateEncryptedAsync("""{"id":"d","pk":"p0","ssn":"old"}""", EncryptionSetup.Dek1, "/ssn");
        var options = new PatchItemRequestOptions { FilterPredicate = "FROM c WHERE true" };

        await Task.WhenAll(Enumerable.Range(0, 4).Select(i => _setup.Container.PatchItemStreamAsync("d", EncryptionSetup.P0, [PatchOperation.Set("/n" + i, i)], options, Ct)));

        Assert.Null(options.IfMatchEtag);
        Assert.Equal("FROM c WHERE true", options.FilterPredicate);
    }

    [Fact]
    public async Task Patch_Typed_ReturnsTheDecryptedDocument()
    {
        await _setup.CreateEncryptedAsync("""{"id":"t","pk":"p0","ssn":"old","n":1}""", EncryptionSetup.Dek1, "/ssn");

        ItemResponse<JObject> response = await _setup.Container.PatchItemAsync<JObject>("t", EncryptionSetup.P0, [PatchOperation.Set("/ssn", "typed"), PatchOperation.Increment("/n", 2)], cancellationToken: Ct);

        Assert.Equal("typed", (string?)response.Resource["ssn"]);
        Assert.Equal(3, (int)response.Resource["n"]!);
        Assert.Null(response.Resource["_ei"]);
    }
}

using Encryption.Custom.Cosmos;
using Encryption.Custom.Tests.Cosmos.Batch;
using Encryption.Custom.Tests.Cosmos.TestSupport;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Cosmos.Policy;

/// <summary>
/// The policy at the container seam (an in-memory container): transactional batch writes encrypt by the policy and
/// batch results are checked (the bundled endpoint cannot run batches yet), and refusals send nothing.
/// </summary>
public sealed class PolicyContainerTests : IDisposable
{
    private readonly EncryptionSetup _setup = new(new EncryptionContainerOptions { Policy = new ContainerEncryptionPolicy(EncryptionSetup.Dek1, ["/ssn", "/salary"]) });

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public void Dispose() => _setup.Dispose();

    [Fact]
    public async Task Batch_WritesWithoutOptions_AreEncryptedByPolicy()
    {
        _setup.Inner.Put(JObject.Parse("""{"id":"p","pk":"p0","name":"x"}"""), EncryptionSetup.P0);

        using TransactionalBatchResponse response = await _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .CreateItem(new EncryptionTransactionalBatchTests.Person("a", "p0", "111", 10))
            .UpsertItemStream(EncryptionSetup.ToStream("""{"id":"b","pk":"p0","ssn":"222","salary":5}"""))
            .PatchItem("p", [PatchOperation.Set("/ssn", "333")])
            .ExecuteAsync(Ct);

        Assert.True(response.IsSuccessStatusCode);
        JObject[] sent = [.. _setup.Inner.ReceivedBodies];
        Assert.Equal(2, sent.Length);
        Assert.All(sent, body =>
        {
            Assert.Equal(EncryptionSetup.Dek1, (string?)body["_ei"]!["_en"]);
            Assert.Equal(new[] { "/ssn", "/salary" }, body["_ei"]!["_ep"]!.Select(p => (string)p!));
        });
        JObject patched = _setup.Inner.Get("p", EncryptionSetup.P0)!;
        Assert.NotEqual("333", (string?)patched["ssn"]);
        Assert.Equal(new[] { "/ssn" }, patched["_ei"]!["_ep"]!.Select(p => (string)p!));
        Assert.Equal("111", response.GetOperationResultAtIndex<EncryptionTransactionalBatchTests.Person>(0).Resource.Ssn);
    }

    [Fact]
    public async Task Batch_RequestEncryptingLessThanPolicy_IsRefusedBeforeAnythingIsSent()
    {
        var fewer = new EncryptionTransactionalBatchItemRequestOptions { EncryptionOptions = EncryptionSetup.Options(EncryptionSetup.Dek1, "/ssn") };

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .CreateItem(new EncryptionTransactionalBatchTests.Person("a", "p0", "111", 10), fewer)
            .ExecuteAsync(Ct));

        Assert.Equal("/salary", error.Path);
        Assert.Empty(_setup.Inner.ReceivedBodies);
        Assert.Empty(_setup.Inner.ExecutedBatches);
    }

    [Fact]
    public async Task Batch_ReadOfPlaintextDocument_FailsWithPlaintextForbidden()
    {
        _setup.Inner.Put(JObject.Parse("""{"id":"plain","pk":"p0","ssn":"444"}"""), EncryptionSetup.P0);

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .ReadItem("plain")
            .ExecuteAsync(Ct));

        Assert.Equal(EncryptionErrorKind.PlaintextForbidden, error.Kind);
        Assert.Equal("/ssn", error.Path);
    }

    [Fact]
    public async Task PointWrite_CaseVariantProperty_IsRefused_AndNothingIsSent()
    {
        using var setup = new EncryptionSetup(new EncryptionContainerOptions { Policy = new ContainerEncryptionPolicy(EncryptionSetup.Dek1, ["/Ssn"]) });

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => setup.Container.CreateItemStreamAsync(EncryptionSetup.ToStream("""{"id":"a","pk":"p0","ssn":"555"}"""), EncryptionSetup.P0, cancellationToken: Ct));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Empty(setup.Inner.ReceivedBodies);
        Assert.Null(setup.Inner.Get("a", EncryptionSetup.P0));
    }
}

using Encryption.Custom.Cosmos;
using Encryption.Custom.Cosmos.Processing;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Tests.Cosmos.TestSupport;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Processing;

public sealed class PartitionKeyGuardTests
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Theory]
    [InlineData(new[] { "/pk" }, new[] { "pk" })]
    [InlineData(new[] { "/tenant/id" }, new[] { "tenant" })]
    [InlineData(new[] { "/tenant", "/user/id", "/tenant/x" }, new[] { "tenant", "user" })]
    [InlineData(new[] { "/\"a/b\"/c" }, new[] { "a/b" })]
    [InlineData(new[] { "" }, new string[0])]
    public void ToTopLevelNames_PartitionKeyPaths_ReturnsTheTopLevelProperties(string[] paths, string[] expected) =>
        Assert.Equal(expected, PartitionKeyGuard.ToTopLevelNames(paths));

    [Fact]
    public async Task CheckAsync_ManyWrites_ReadsTheDefinitionOnce()
    {
        using var setup = new EncryptionSetup();

        for (int i = 0; i < 5; i++)
        {
            await setup.CreateEncryptedAsync($$"""{"id":"d{{i}}","pk":"p0","ssn":"x"}""", EncryptionSetup.Dek1, "/ssn");
        }

        Assert.Equal(1, setup.Inner.ReadContainerCount);
    }

    [Theory]
    [InlineData("/pk/inner")]
    [InlineData("/pk/[]")]
    [InlineData("/tenant/id")]
    [InlineData("/tenant/name")]
    public void Check_NestedSelectorUnderThePropertyHoldingTheKey_IsRefused(string selector)
    {
        EncryptionPlan plan = EncryptionPlan.Create("dek", CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, [selector]);

        EncryptionException error = Assert.Throws<EncryptionException>(() => PartitionKeyGuard.Check(plan, ["pk", "tenant"]));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Equal(selector, error.Path);
    }

    [Fact]
    public void Check_NestedSelectorElsewhere_Passes() =>
        PartitionKeyGuard.Check(EncryptionPlan.Create("dek", CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, ["/address/pk", "/pkx/a"]), ["pk"]);

    [Fact]
    public async Task CheckAsync_NestedPartitionKey_RejectsItsTopLevelProperty()
    {
        using var setup = new EncryptionSetup(partitionKeyPath: "/tenant/id");

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() =>
            setup.Container.CreateItemStreamAsync(EncryptionSetup.ToStream("""{"id":"x","tenant":{"id":"t"}}"""), new PartitionKey("t"), EncryptionSetup.Encrypt(EncryptionSetup.Dek1, "/tenant"), Ct));

        Assert.Equal("/tenant", error.Path);
        Assert.Empty(setup.Inner.ReceivedBodies);
    }
}

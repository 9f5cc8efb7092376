namespace Encryption.Custom.Emulator.Tests.Sdk;

public sealed class AccountTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    [Fact]
    public async Task ReadAccount_Endpoint_ReturnsIdAndReadableRegion()
    {
        AccountProperties account = await fixture.Client.ReadAccountAsync();

        Assert.False(string.IsNullOrEmpty(account.Id));
        Assert.NotEmpty(account.ReadableRegions);
        Assert.All(account.ReadableRegions, region => Assert.False(string.IsNullOrEmpty(region.Endpoint)));
    }
}

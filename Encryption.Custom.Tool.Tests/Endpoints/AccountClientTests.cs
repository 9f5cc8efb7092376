using Encryption.Custom.Tool.Endpoints;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.Tests.Endpoints;

public sealed class AccountClientTests
{
    [Theory]
    [InlineData(null)]
    [InlineData("")]
    public void Create_LoopbackEndpointWithoutAccountKey_IsAUsageErrorNamingCosmosKey(string? key)
    {
        ToolException error = Assert.Throws<ToolException>(() => AccountClient.Create(new Uri("https://127.0.0.1:8081/"), allowBulkExecution: false, key));

        Assert.Equal(ExitCodes.UsageError, error.ExitCode);
        Assert.Contains("COSMOS_KEY", error.Message, StringComparison.Ordinal);
        Assert.Contains("loopback", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Create_LoopbackEndpointWithAccountKey_CreatesAClient()
    {
        using var client = AccountClient.Create(new Uri("https://127.0.0.1:8081/"), allowBulkExecution: false, Convert.ToBase64String(new byte[64]));

        Assert.Equal(new Uri("https://127.0.0.1:8081/"), client.Endpoint);
    }
}

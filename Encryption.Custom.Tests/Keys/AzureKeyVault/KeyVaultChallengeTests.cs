using Encryption.Custom.AzureKeyVault;

namespace Encryption.Custom.Tests.Keys.AzureKeyVault;

public class KeyVaultChallengeTests
{
    [Fact]
    public void Parse_ResourceAndAuthorization_GivesDefaultScopeAndTenant()
    {
        var challenge = KeyVaultChallenge.Parse(
            "Bearer authorization=\"https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47\", resource=\"https://vault.azure.net\"");

        Assert.NotNull(challenge);
        Assert.Equal("https://vault.azure.net/.default", challenge.Scope);
        Assert.Equal("vault.azure.net", challenge.ResourceHost);
        Assert.Equal("72f988bf-86f1-41af-91ab-2d7cd011db47", challenge.TenantId);
    }

    [Fact]
    public void Parse_ResourceAndScope_PrefersResourceAsTheAzureSdkDoes()
    {
        var challenge = KeyVaultChallenge.Parse(
            "Bearer authorization_uri=\"https://login.microsoftonline.us/tenant-1\", resource=\"https://vault.usgovcloudapi.net\", scope=\"https://other.net/.default\"");

        Assert.NotNull(challenge);
        Assert.Equal("https://vault.usgovcloudapi.net/.default", challenge.Scope);
        Assert.Equal("tenant-1", challenge.TenantId);
    }

    [Fact]
    public void Parse_ScopeOnly_UsesTheScope()
    {
        var challenge = KeyVaultChallenge.Parse("Bearer authorization=\"https://login.test/t\", scope=\"https://managedhsm.azure.net/.default\"");

        Assert.Equal("https://managedhsm.azure.net/.default", challenge?.Scope);
    }

    [Theory]
    [InlineData("PoP nonce=\"a, b=c\", Bearer authorization=\"https://login.test/tenant-2\", resource=\"https://vault.azure.net\"")]
    [InlineData("Basic realm=\"x\", Bearer authorization=\"https://login.test/tenant-2\",resource=\"https://vault.azure.net\"")]
    [InlineData("Negotiate, Basic dXNlcjpwYXNz==, Bearer resource=\"https://vault.azure.net\", authorization=\"https://login.test/tenant-2\"")]
    [InlineData("bearer  authorization = \"https://login.test/tenant-2\" , resource = \"https://vault.azure.net\", Basic realm=\"resource=https://evil.example\"")]
    [InlineData("Bearer realm=\"a \\\"quoted, tricky\\\" realm\", authorization=\"https://login.test/tenant-2\", resource=\"https://vault.azure.net\"")]
    public void Parse_SeveralChallengesOrQuotedCommas_FindsTheBearerParameters(string header)
    {
        var challenge = KeyVaultChallenge.Parse(header);

        Assert.NotNull(challenge);
        Assert.Equal("https://vault.azure.net/.default", challenge.Scope);
        Assert.Equal("tenant-2", challenge.TenantId);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("Basic realm=\"x\"")]
    [InlineData("Basic resource=\"https://vault.azure.net\"")]
    [InlineData("Bearer authorization=\"https://login.microsoftonline.com/t\"")]
    [InlineData("Bearer resource=\"not a uri\"")]
    [InlineData("Bearer")]
    [InlineData(",,, =\"\"")]
    public void Parse_NotAUsableBearerChallenge_ReturnsNull(string? header)
    {
        Assert.Null(KeyVaultChallenge.Parse(header));
    }

    [Theory]
    [InlineData("vault.azure.net", "myvault.vault.azure.net", true)]
    [InlineData("vault.azure.net", "MYVAULT.VAULT.AZURE.NET", true)]
    [InlineData("127.0.0.1", "127.0.0.1", true)]
    [InlineData("vault.azure.net", "myvault.vault.azure.net.evil.com", false)]
    [InlineData("vault.azure.net", "evilvault.azure.net", false)]
    [InlineData("managedhsm.azure.net", "myvault.vault.azure.net", false)]
    public void IsResourceOfHost_ChecksDomainSuffixOnLabelBoundaries(string resourceHost, string requestHost, bool expected)
    {
        Assert.Equal(expected, KeyVaultChallenge.IsResourceOfHost(resourceHost, requestHost));
    }
}

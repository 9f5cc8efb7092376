using Encryption.Custom.AzureKeyVault;

namespace Encryption.Custom.Tests.Keys.AzureKeyVault;

public class KeyVaultChallengeAuthenticationPolicyTests
{
    [Fact]
    public void ParseChallenge_ResourceAndAuthorization_GivesDefaultScopeAndTenant()
    {
        var challenge = KeyVaultChallengeAuthenticationPolicy.ParseChallenge(
            "Bearer authorization=\"https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47\", resource=\"https://vault.azure.net\"");

        Assert.NotNull(challenge);
        Assert.Equal("https://vault.azure.net/.default", challenge.Scope);
        Assert.Equal("vault.azure.net", challenge.ResourceHost);
        Assert.Equal("72f988bf-86f1-41af-91ab-2d7cd011db47", challenge.TenantId);
    }

    [Fact]
    public void ParseChallenge_Scope_WinsOverResource()
    {
        var challenge = KeyVaultChallengeAuthenticationPolicy.ParseChallenge(
            "Bearer authorization_uri=\"https://login.microsoftonline.us/tenant-1\", resource=\"https://other.net\", scope=\"https://vault.usgovcloudapi.net/.default\"");

        Assert.NotNull(challenge);
        Assert.Equal("https://vault.usgovcloudapi.net/.default", challenge.Scope);
        Assert.Equal("tenant-1", challenge.TenantId);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("Basic realm=\"x\"")]
    [InlineData("Bearer authorization=\"https://login.microsoftonline.com/t\"")]
    [InlineData("Bearer resource=\"not a uri\"")]
    public void ParseChallenge_NotAUsableBearerChallenge_ReturnsNull(string? header)
    {
        Assert.Null(KeyVaultChallengeAuthenticationPolicy.ParseChallenge(header));
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
        Assert.Equal(expected, KeyVaultChallengeAuthenticationPolicy.IsResourceOfHost(resourceHost, requestHost));
    }
}

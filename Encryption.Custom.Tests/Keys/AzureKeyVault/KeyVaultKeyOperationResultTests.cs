using System.Text;
using Encryption.Custom.AzureKeyVault;

namespace Encryption.Custom.Tests.Keys.AzureKeyVault;

public class KeyVaultKeyOperationResultTests
{
    [Fact]
    public async Task ReadAsync_KeyVaultResult_DecodesValueAndKeyId()
    {
        using var content = new MemoryStream(Encoding.UTF8.GetBytes("{\"kid\":\"https://v.vault.azure.net/keys/k/1\",\"value\":\"AQID_-8\",\"extra\":{\"a\":[1,2]}}"));

        KeyVaultKeyOperationResult result = await KeyVaultKeyOperationResult.ReadAsync(content, TestContext.Current.CancellationToken);

        Assert.Equal("https://v.vault.azure.net/keys/k/1", result.KeyId);
        Assert.Equal(new byte[] { 1, 2, 3, 0xFF, 0xEF }, result.Value);
    }

    [Fact]
    public async Task ReadAsync_BodyLargerThanAnyResult_IsRefused()
    {
        using var content = new MemoryStream(new byte[KeyVaultKeyOperationResult.MaxBodyLength + 1]);

        await Assert.ThrowsAsync<FormatException>(() => KeyVaultKeyOperationResult.ReadAsync(content, TestContext.Current.CancellationToken));
    }

    [Theory]
    [InlineData("{\"kid\":\"x\"}")]
    [InlineData("{\"value\":\"!!\"}")]
    [InlineData("[]")]
    [InlineData("{\"value\":")]
    [InlineData("{\"kid\":\"x\",\"value\":\"AQID\",\"value\":\"BAUG\"}")] // a second raw key would overwrite the first unwiped
    [InlineData("{\"value\":\"AQID\",\"kid\":\"x\",\"value\":\"AQID\"}")]
    [InlineData("{\"kid\":\"x\",\"value\":\"AQID\",\"kid\":\"y\"}")]
    public void Parse_NotAKeyOperationResult_ThrowsFormatException(string json)
    {
        Assert.Throws<FormatException>(() => KeyVaultKeyOperationResult.Parse(Encoding.UTF8.GetBytes(json)));
    }
}

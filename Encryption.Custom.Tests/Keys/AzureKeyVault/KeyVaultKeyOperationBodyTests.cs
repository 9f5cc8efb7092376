using System.Buffers.Text;
using System.Runtime.InteropServices;
using System.Text;
using Encryption.Custom.AzureKeyVault;

namespace Encryption.Custom.Tests.Keys.AzureKeyVault;

public class KeyVaultKeyOperationBodyTests
{
    [Fact]
    public void Create_WritesKeyVaultJsonWithUnpaddedBase64Url()
    {
        byte[] value = [0xFB, 0xFF, 0x00, 0x01, 0x02];

        using var body = KeyVaultKeyOperationBody.Create("RSA-OAEP-256", value);

        Assert.Equal($"{{\"alg\":\"RSA-OAEP-256\",\"value\":\"{Base64Url.EncodeToString(value)}\"}}", Encoding.UTF8.GetString(body.Memory.Span));
        Assert.DoesNotContain("=", Encoding.UTF8.GetString(body.Memory.Span), StringComparison.Ordinal);
    }

    [Fact]
    public void Dispose_ZeroesTheBufferThatHeldTheKey()
    {
        var body = KeyVaultKeyOperationBody.Create("RSA-OAEP", Enumerable.Repeat((byte)0xA5, 32).ToArray());
        Assert.True(MemoryMarshal.TryGetArray(body.Memory, out ArraySegment<byte> buffer));

        body.Dispose();

        Assert.All(buffer.Array!, b => Assert.Equal(0, b));
        Assert.Throws<ObjectDisposedException>(() => body.Memory);
    }
}

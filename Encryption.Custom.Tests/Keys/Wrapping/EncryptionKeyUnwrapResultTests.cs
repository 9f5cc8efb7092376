
namespace Encryption.Custom.Tests.Keys.Wrapping;

public class EncryptionKeyUnwrapResultTests
{
    [Fact]
    public void Dispose_ZeroesTheKeyBufferAndBlocksAccess()
    {
        byte[] key = [1, 2, 3, 4, 5, 6, 7, 8];
        var result = new EncryptionKeyUnwrapResult(key, TimeSpan.FromMinutes(1));

        result.Dispose();
        result.Dispose();

        Assert.All(key, b => Assert.Equal(0, b));
        Assert.Throws<ObjectDisposedException>(() => result.DataEncryptionKey.Length);
    }

    [Fact]
    public void ToString_DoesNotShowTheKey()
    {
        using var result = new EncryptionKeyUnwrapResult([0xAB, 0xCD, 0xEF, 0x12], TimeSpan.FromMinutes(1));

        Assert.DoesNotContain("ABCDEF", result.ToString(), StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("q83v", result.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void Constructor_NegativeTimeToLive_Throws()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new EncryptionKeyUnwrapResult([1], TimeSpan.FromSeconds(-1)));
    }

    [Fact]
    public void Constructor_InfiniteTimeToLive_IsAccepted()
    {
        using var result = new EncryptionKeyUnwrapResult([1], Timeout.InfiniteTimeSpan);

        Assert.Equal(Timeout.InfiniteTimeSpan, result.ClientCacheTimeToLive);
    }
}

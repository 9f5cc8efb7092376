using System.Security.Cryptography;
using Encryption.Custom.Crypto;

namespace Encryption.Custom.Tests.Crypto;

/// <summary>The per-cell tag check: equal tags only, whichever bit differs, and only for tags of 32 bytes.</summary>
public sealed class TagComparisonTests
{
    [Fact]
    public void EqualTags_AreEqual_AndEveryFlippedBitIsNot()
    {
        byte[] tag = RandomNumberGenerator.GetBytes(32);

        Assert.True(TagComparison.Equal(tag, tag.ToArray()));
        for (int bit = 0; bit < 256; bit++)
        {
            byte[] other = tag.ToArray();
            other[bit / 8] ^= (byte)(1 << (bit % 8));
            Assert.False(TagComparison.Equal(tag, other), $"bit {bit}");
            Assert.False(TagComparison.Equal(other, tag), $"bit {bit}");
        }
    }

    [Theory]
    [InlineData(31, 32)]
    [InlineData(32, 33)]
    [InlineData(0, 0)]
    public void TagsOfAnotherLength_AreRefused(int computed, int stored) =>
        Assert.Throws<ArgumentException>(() => TagComparison.Equal(new byte[computed], new byte[stored]));
}

namespace Encryption.Custom.Tests.Migration;

/// <summary>
/// <see cref="EncryptionMigrationOptions.LeaseExpirationInterval"/>: its default (the SDK's), the renewal derived from
/// it, and the values it refuses (with a message naming the option, the options left as they were).
/// </summary>
public sealed class EncryptionMigrationOptionsTests
{
    [Fact]
    public void LeaseExpirationInterval_Default_IsTheSdksSixtySecondsRenewedEverySeventeen()
    {
        var options = new EncryptionMigrationOptions();

        Assert.Equal(TimeSpan.FromSeconds(60), options.LeaseExpirationInterval);
        Assert.Equal(TimeSpan.FromSeconds(17), options.LeaseRenewInterval);
    }

    [Theory]
    [InlineData(5, 5.0 / 3)]
    [InlineData(15, 5)]
    [InlineData(51, 17)]
    [InlineData(60, 17)]
    [InlineData(3600, 17)]
    public void LeaseRenewInterval_IsAThirdOfTheExpiration_AtMostSeventeenSeconds(double expirationSeconds, double renewSeconds)
    {
        var options = new EncryptionMigrationOptions { LeaseExpirationInterval = TimeSpan.FromSeconds(expirationSeconds) };

        Assert.Equal(TimeSpan.FromSeconds(expirationSeconds), options.LeaseExpirationInterval);
        Assert.Equal(renewSeconds, options.LeaseRenewInterval.TotalSeconds, precision: 6);
    }

    [Theory]
    [InlineData(1_000)]
    [InlineData(1_001)]
    [InlineData(5_000)]
    [InlineData(51_000)]
    [InlineData(60_000)]
    [InlineData(86_400_000)]
    public void LeaseRenewInterval_AcrossTheAcceptedRange_IsShorterThanTheExpirationWithTwoRenewalsToSpare(long milliseconds)
    {
        // A lease must be renewed before it expires, with room for a renewal lost on the way (the SDK does not retry one).
        TimeSpan expiration = TimeSpan.FromMilliseconds(milliseconds);
        var options = new EncryptionMigrationOptions { LeaseExpirationInterval = expiration };

        Assert.True(options.LeaseRenewInterval > TimeSpan.Zero);
        Assert.True(options.LeaseRenewInterval * 3 <= expiration, $"renew {options.LeaseRenewInterval} for expiration {expiration}");
    }

    [Theory]
    [InlineData(0L)]
    [InlineData(-1L)]
    [InlineData(-60_000L)]
    [InlineData(999L)]
    [InlineData(86_400_001L)]
    public void LeaseExpirationInterval_OutOfRange_IsRefusedNamingTheOption_AndLeavesTheOptionsAsTheyWere(long milliseconds)
    {
        var options = new EncryptionMigrationOptions { LeaseExpirationInterval = TimeSpan.FromSeconds(5) };

        ArgumentOutOfRangeException refused = Assert.Throws<ArgumentOutOfRangeException>(
            () => options.LeaseExpirationInterval = TimeSpan.FromMilliseconds(milliseconds));

        Assert.Contains(nameof(EncryptionMigrationOptions.LeaseExpirationInterval), refused.Message, StringComparison.Ordinal);
        Assert.Contains("from 1 s to 24 hours", refused.Message, StringComparison.Ordinal);
        Assert.Equal(TimeSpan.FromMilliseconds(milliseconds), refused.ActualValue);
        Assert.Equal(TimeSpan.FromSeconds(5), options.LeaseExpirationInterval);
    }

    [Fact]
    public void LeaseExpirationInterval_Extremes_AreRefused()
    {
        var options = new EncryptionMigrationOptions();

        Assert.Throws<ArgumentOutOfRangeException>(() => options.LeaseExpirationInterval = TimeSpan.MaxValue);
        Assert.Throws<ArgumentOutOfRangeException>(() => options.LeaseExpirationInterval = TimeSpan.MinValue);
        Assert.Equal(TimeSpan.FromSeconds(60), options.LeaseExpirationInterval);
    }

    [Fact]
    public void LeaseExpirationInterval_Bounds_AreAccepted()
    {
        var options = new EncryptionMigrationOptions { LeaseExpirationInterval = TimeSpan.FromSeconds(1) };
        Assert.Equal(TimeSpan.FromSeconds(1), options.LeaseExpirationInterval);

        options.LeaseExpirationInterval = TimeSpan.FromDays(1);
        Assert.Equal(TimeSpan.FromDays(1), options.LeaseExpirationInterval);
    }
}

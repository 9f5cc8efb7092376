using Encryption.Custom.Keys.Caching;
using Encryption.Custom.Tests.Keys.TestSupport;
using Microsoft.Extensions.Time.Testing;
using Encryption.Custom.Tests.TestSupport;
using Microsoft.Extensions.Logging;

namespace Encryption.Custom.Tests.Keys.Caching;

/// <summary>What the cache tells an operator: loads, refreshes and their failures, by DEK id and error kind, never key bytes.</summary>
public sealed class DekCacheLoggingTests : IDisposable
{
    private const string Mde = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

    private readonly FakeTimeProvider _time = new(TestClock.Start);
    private readonly FakeDekSource _source = new(TimeSpan.FromMinutes(60));
    private readonly CapturingLogger _log = new();
    private readonly DekCache _cache;

    public DekCacheLoggingTests()
    {
        _source.AddKey("dek1");
        var settings = new DekCacheSettings
        {
            TimeProvider = _time,
            RefreshBeforeExpiry = TimeSpan.FromMinutes(10),
            RefreshRetryInterval = TimeSpan.FromSeconds(30),
            Logger = _log,
        };
        _cache = new DekCache(_source, settings, new TestKeyFactory());
    }

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public void Dispose()
    {
        _cache.Dispose();
        _source.Dispose();
    }

    [Fact]
    public async Task Miss_LogsTheLoadWithTheKeyIdAndItsLifetime_AndAHitLogsNothing()
    {
        await _cache.GetKeyAsync("dek1", Mde, Ct);
        await _cache.GetKeyAsync("dek1", Mde, Ct);

        var entry = Assert.Single(_log.Entries);
        Assert.Equal("DataEncryptionKeyLoaded", entry.EventName);
        Assert.Equal(LogLevel.Information, entry.Level);
        Assert.Equal("Data encryption key 'dek1' was read and unwrapped; it is cached for 01:00:00.", entry.Message);
        AssertNoKeyBytes();
    }

    [Fact]
    public async Task UnwrapFailure_LogsAnErrorNamingTheKeyAndTheErrorKind()
    {
        _source.UnwrapFailure = new InvalidOperationException("the key store is down");

        await Assert.ThrowsAsync<EncryptionException>(async () => await _cache.GetKeyAsync("dek1", Mde, Ct));

        var entry = Assert.Single(_log.Entries);
        Assert.Equal("DataEncryptionKeyLoadFailed", entry.EventName);
        Assert.Equal(LogLevel.Error, entry.Level);
        Assert.Contains("'dek1'", entry.Message, StringComparison.Ordinal);
        Assert.Contains("(KeyUnavailable)", entry.Message, StringComparison.Ordinal);
        Assert.Contains("the key store is down", entry.Exception, StringComparison.Ordinal);
        AssertNoKeyBytes();
    }

    [Fact]
    public async Task BackgroundRefresh_LogsItsSuccess_AndItsFailureWithTheRetryInterval()
    {
        await _cache.GetKeyAsync("dek1", Mde, Ct);
        _time.Advance(TimeSpan.FromMinutes(55));
        await RefreshAsync();
        Assert.Contains(_log.Entries, entry => entry.EventName == "DataEncryptionKeyRefreshed" && entry.Message.Contains("'dek1'", StringComparison.Ordinal));

        _time.Advance(TimeSpan.FromMinutes(55));
        _source.UnwrapFailure = new InvalidOperationException("the key store is down");
        await RefreshAsync();

        var failure = Assert.Single(_log.Entries, entry => entry.EventName == "DataEncryptionKeyRefreshFailed");
        Assert.Equal(LogLevel.Warning, failure.Level);
        Assert.Contains("'dek1' failed (KeyUnavailable)", failure.Message, StringComparison.Ordinal);
        Assert.Contains("retried after 00:00:30", failure.Message, StringComparison.Ordinal);
        AssertNoKeyBytes();
    }

    private async Task RefreshAsync()
    {
        await _cache.GetKeyAsync("dek1", Mde, Ct);
        await ((Task?)_cache.GetLoadInFlight("dek1", Mde) ?? Task.CompletedTask).ContinueWith(_ => { }, Ct, TaskContinuationOptions.None, TaskScheduler.Default);
    }

    private void AssertNoKeyBytes()
    {
        byte[] raw = _source.RawKeys["dek1"];
        Assert.DoesNotContain(Convert.ToBase64String(raw), _log.AllText, StringComparison.Ordinal);
        Assert.DoesNotContain(Convert.ToHexString(raw), _log.AllText, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain(BitConverter.ToString(raw), _log.AllText, StringComparison.OrdinalIgnoreCase);
    }
}

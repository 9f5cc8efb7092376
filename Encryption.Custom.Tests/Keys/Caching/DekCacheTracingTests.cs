using System.Diagnostics;
using Encryption.Custom.Keys.Caching;
using Encryption.Custom.Tests.Diagnostics;
using Encryption.Custom.Tests.Keys.TestSupport;
using Microsoft.Extensions.Time.Testing;

namespace Encryption.Custom.Tests.Keys.Caching;

/// <summary>
/// Loads run on the thread pool without the caller's execution context; the DEK read and the unwrap must still be
/// recorded under the request that missed the cache, and a background refresh as its own trace linked to it.
/// </summary>
[Collection(TelemetryCollection.Name)]
public sealed class DekCacheTracingTests : IDisposable
{
    private const string Mde = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

    private const string RequestSourceName = "Encryption.Custom.Tests.Requests";

    private static readonly ActivitySource s_requests = new(RequestSourceName);

    private readonly FakeTimeProvider _time = new(TestClock.Start);
    private readonly FakeDekSource _source = new(TimeSpan.FromMinutes(60));
    private readonly ActivityListener _requestListener = new()
    {
        // By name: comparing with s_requests could run its initializer inside the listener registration, too late.
        ShouldListenTo = source => source.Name == RequestSourceName,
        Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
    };

    private readonly DekCache _cache;

    public DekCacheTracingTests()
    {
        ActivitySource.AddActivityListener(_requestListener);
        _source.AddKey("dek1");
        _cache = new DekCache(_source, new DekCacheSettings { TimeProvider = _time, RefreshBeforeExpiry = TimeSpan.FromMinutes(10) }, new TestKeyFactory());
    }

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public void Dispose()
    {
        _cache.Dispose();
        _source.Dispose();
        _requestListener.Dispose();
    }

    [Fact]
    public async Task Miss_WithoutListenersOnTheLibrary_ReadsAndUnwrapsUnderTheRequestActivity()
    {
        using Activity request = s_requests.StartActivity("GET /orders")!;

        await _cache.GetKeyAsync("dek1", Mde, Ct);

        // What the Cosmos SDK or an HTTP client would start in the source nests under the request.
        Assert.NotNull(request);
        Assert.Same(request, _source.ReadActivity);
        Assert.Same(request, _source.UnwrapActivity);
    }

    [Fact]
    public async Task Miss_WithListeners_IsALoadActivityChildOfTheRequest()
    {
        using var telemetry = new TelemetryCapture();
        using Activity request = s_requests.StartActivity("GET /orders")!;

        await _cache.GetKeyAsync("dek1", Mde, Ct);

        Activity load = Assert.Single(telemetry.Activities, a => a.TraceId == request.TraceId);
        Assert.Equal(DekCacheTracing.LoadActivityName, load.OperationName);
        Assert.Equal(request.SpanId, load.ParentSpanId);
        Assert.Equal("dek1", load.GetTagItem(DiagnosticNames.DataEncryptionKeyIdTag));
        Assert.Same(load, _source.UnwrapActivity);
        Assert.Same(load, _source.ReadActivity);
    }

    [Fact]
    public async Task FailedLoad_IsMarkedWithTheErrorKind()
    {
        using var telemetry = new TelemetryCapture();
        _source.UnwrapFailure = new InvalidOperationException("the key store is down");
        using Activity request = s_requests.StartActivity("GET /orders")!;

        await Assert.ThrowsAsync<EncryptionException>(async () => await _cache.GetKeyAsync("dek1", Mde, Ct));

        Activity load = Assert.Single(telemetry.Activities, a => a.TraceId == request.TraceId);
        Assert.Equal(ActivityStatusCode.Error, load.Status);
        Assert.Equal(nameof(EncryptionErrorKind.KeyUnavailable), load.GetTagItem(DiagnosticNames.ErrorTypeTag));
    }

    [Fact]
    public async Task BackgroundRefresh_IsARootLinkedToTheRequestThatNoticedTheExpiry()
    {
        await _cache.GetKeyAsync("dek1", Mde, Ct);
        _time.Advance(TimeSpan.FromMinutes(55));
        using var telemetry = new TelemetryCapture();
        using Activity request = s_requests.StartActivity("GET /orders")!;

        await _cache.GetKeyAsync("dek1", Mde, Ct);
        await (_cache.GetLoadInFlight("dek1", Mde) ?? Task.CompletedTask).WaitAsync(Ct);

        Activity refresh = Assert.Single(telemetry.Activities, a => a.Links.Any(link => link.Context.TraceId == request.TraceId));
        Assert.Equal(DekCacheTracing.LoadActivityName, refresh.OperationName);
        Assert.NotEqual(request.TraceId, refresh.TraceId);
        Assert.Equal(default, refresh.ParentSpanId);
        Assert.Same(refresh, _source.UnwrapActivity);
    }
}

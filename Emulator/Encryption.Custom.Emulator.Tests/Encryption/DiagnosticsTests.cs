using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Globalization;
using System.Security.Cryptography;
using Encryption.Custom.Cosmos;
using Encryption.Custom.Diagnostics;
using Encryption.Custom.Keys;
using Encryption.Custom.Keys.Cosmos;
using Encryption.Custom.Keys.Local;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>
/// End to end, an <see cref="ActivityListener"/> and a <see cref="MeterListener"/> see the spans and measurements
/// of real operations, key-cache and unwrap counters included, and nothing secret in their tags. Runs alone
/// (listeners are process-wide).
/// </summary>
[Collection(DiagnosticsCollection.Name)]
public sealed class DiagnosticsTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>, IDisposable
{
    private readonly ConcurrentQueue<Activity> _activities = new();
    private readonly ConcurrentQueue<(string Name, double Value, string Tags)> _measurements = new();
    private ActivityListener? _activityListener;
    private MeterListener? _meterListener;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public void Dispose()
    {
        _activityListener?.Dispose();
        _meterListener?.Dispose();
    }

    private void Listen()
    {
        _activityListener = new ActivityListener
        {
            ShouldListenTo = source => source.Name == DiagnosticNames.SourceName,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = _activities.Enqueue,
        };
        ActivitySource.AddActivityListener(_activityListener);
        _meterListener = new MeterListener
        {
            InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter.Name == DiagnosticNames.SourceName)
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            },
        };
        _meterListener.SetMeasurementEventCallback<long>((i, v, t, _) => _measurements.Enqueue((i.Name, v, Join(t))));
        _meterListener.SetMeasurementEventCallback<double>((i, v, t, _) => _measurements.Enqueue((i.Name, v, Join(t))));
        _meterListener.Start();
    }

    private static string Join(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        var parts = new List<string>();
        foreach (KeyValuePair<string, object?> tag in tags)
        {
            parts.Add($"{tag.Key}={tag.Value}");
        }

        return string.Join(';', parts);
    }

    private double Sum(string name) => _measurements.Where(m => m.Name == name).Sum(m => m.Value);

    [Fact]
    public async Task Operations_WithListeners_ReportSpansMetricsAndKeyCacheCountersWithoutSecrets()
    {
        // A provider of its own, so that the first use of the DEK is a cache miss with one unwrap.
        using var kek = new LocalKeyWrapProvider();
        kek.AddAesKey("diag-kek", RandomNumberGenerator.GetBytes(32));
        using var provider = new CosmosDataEncryptionKeyProvider(kek);
        await provider.InitializeAsync(fixture.Database, "diag-keys-" + Guid.NewGuid().ToString("N"), Ct);
        EncryptionKeyWrapMetadata metadata = LocalKeyWrapProvider.CreateMetadata("diag-kek", KeyWrapAlgorithm.AesKeyWrap);
        await provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("diag-dek", EncryptionFixture.Mde, metadata, cancellationToken: Ct);
        (Container raw, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        Container container = raw.WithEncryptor(new CosmosEncryptor(provider));
        SecretDocument document = SecretDocument.Create() with { Ssn = "diagnostics-secret-value" };
        Listen();

        await container.CreateItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt("diag-dek", SecretDocument.SecretPaths), Ct);
        await container.ReadItemAsync<SecretDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);
        int queryPages = 0;
        using (FeedIterator<SecretDocument> pages = container.GetItemQueryIterator<SecretDocument>("SELECT * FROM c"))
        {
            while (pages.HasMoreResults)
            {
                await pages.ReadNextAsync(Ct);
                queryPages++;
            }
        }

        await Assert.ThrowsAsync<EncryptionException>(() => container.CreateItemAsync(SecretDocument.Create(), new PartitionKey("p0"), EncryptionFixture.Encrypt("diag-dek", "/pk"), Ct));

        Activity[] mine = [.. _activities.Where(a => (string?)a.GetTagItem(DiagnosticNames.ContainerTag) == raw.Id)];
        Activity create = Assert.Single(mine, a => a.OperationName == DiagnosticNames.ActivityPrefix + OperationNamesForTests.CreateItem && a.Status != ActivityStatusCode.Error);
        Assert.Equal("diag-dek", create.GetTagItem(DiagnosticNames.DataEncryptionKeyIdTag));
        Assert.Equal(6, create.GetTagItem(DiagnosticNames.PropertiesEncryptedTag));
        Assert.Equal(201, create.GetTagItem(DiagnosticNames.StatusCodeTag));
        Activity read = Assert.Single(mine, a => a.OperationName == DiagnosticNames.ActivityPrefix + OperationNamesForTests.ReadItem);
        Assert.Equal(6, read.GetTagItem(DiagnosticNames.PropertiesDecryptedTag));

        // One span per page the caller reads (docs/diagnostics.md): a query across the container's partition key
        // ranges reads one page per range at least, so the one document is decrypted in one of several spans.
        Activity[] query = [.. mine.Where(a => a.OperationName == DiagnosticNames.ActivityPrefix + OperationNamesForTests.QueryReadNext)];
        Assert.Equal(queryPages, query.Length);
        Assert.Equal(1, query.Sum(a => Convert.ToInt32(a.GetTagItem(DiagnosticNames.DocumentsDecryptedTag) ?? 0, CultureInfo.InvariantCulture)));
        Activity failed = Assert.Single(mine, a => a.Status == ActivityStatusCode.Error);
        Assert.Equal(nameof(EncryptionErrorKind.InvalidOptions), failed.GetTagItem(DiagnosticNames.ErrorTypeTag));

        Assert.True(Sum(DiagnosticNames.KeyCacheMisses) >= 1);
        Assert.True(Sum(DiagnosticNames.KeyCacheHits) >= 1);
        Assert.True(Sum(DiagnosticNames.KeyUnwraps) >= 1);
        Assert.True(Sum(DiagnosticNames.EncryptedBytes) > 0);
        Assert.True(Sum(DiagnosticNames.DecryptedBytes) > 0);
        Assert.True(Sum(DiagnosticNames.OperationFailures) >= 1);

        IEnumerable<string> tagText = mine.SelectMany(a => a.TagObjects.Select(t => $"{t.Key}={t.Value}"))
            .Concat(_measurements.Select(m => m.Tags));
        Assert.DoesNotContain(tagText, t => t.Contains("diagnostics-secret-value", StringComparison.Ordinal));
    }

    /// <summary>The operation names the library records (internal there; repeated here as the documented strings).</summary>
    private static class OperationNamesForTests
    {
        public const string CreateItem = "CreateItem";
        public const string ReadItem = "ReadItem";
        public const string QueryReadNext = "Query.ReadNext";
    }
}

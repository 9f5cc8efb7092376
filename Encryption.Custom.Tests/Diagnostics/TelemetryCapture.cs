using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using Encryption.Custom.Diagnostics;

namespace Encryption.Custom.Tests.Diagnostics;

/// <summary>Listens to the library's activity source and meter and keeps everything they report.</summary>
public sealed class TelemetryCapture : IDisposable
{
    private readonly ActivityListener _activities;
    private readonly MeterListener _meters;

    public TelemetryCapture()
    {
        _activities = new ActivityListener
        {
            ShouldListenTo = source => source.Name == DiagnosticNames.SourceName,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = activity => Activities.Enqueue(activity),
        };
        ActivitySource.AddActivityListener(_activities);

        _meters = new MeterListener
        {
            InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter.Name == DiagnosticNames.SourceName)
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            },
        };
        _meters.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Record(instrument, value, tags));
        _meters.SetMeasurementEventCallback<double>((instrument, value, tags, _) => Record(instrument, value, tags));
        _meters.Start();
    }

    public ConcurrentQueue<Activity> Activities { get; } = new();

    public ConcurrentQueue<(string Instrument, double Value, Dictionary<string, object?> Tags)> Measurements { get; } = new();

    public double Sum(string instrument) => Measurements.Where(m => m.Instrument == instrument).Sum(m => m.Value);

    public int Count(string instrument) => Measurements.Count(m => m.Instrument == instrument);

    /// <summary>Every tag value reported, as text.</summary>
    public IEnumerable<string> AllTagValues() =>
        Activities.SelectMany(a => a.TagObjects.Select(t => t.Value?.ToString() ?? string.Empty).Append(a.DisplayName).Append(a.StatusDescription ?? string.Empty))
            .Concat(Measurements.SelectMany(m => m.Tags.Values.Select(v => v?.ToString() ?? string.Empty)));

    public void Dispose()
    {
        _activities.Dispose();
        _meters.Dispose();
    }

    private void Record(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        var copy = new Dictionary<string, object?>(StringComparer.Ordinal);
        foreach (KeyValuePair<string, object?> tag in tags)
        {
            copy[tag.Key] = tag.Value;
        }

        Measurements.Enqueue((instrument.Name, value, copy));
    }
}

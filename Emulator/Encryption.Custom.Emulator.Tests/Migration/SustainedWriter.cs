using System.Diagnostics;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// An application writing at a sustained rate while a migration runs: two writers update the even documents of their
/// half (so the odd half stays the migration's to rewrite), each pausing <c>interval</c> between upserts.
/// </summary>
/// <remarks>
/// Paced by time, not bounded by a write count: a count that a busy machine needs minutes for, a quiet one ran out of
/// in seconds, and the writer stopped before the run it was meant to load had ended. The rate is set by the interval
/// (well above the budgets the tests use; the bundled endpoint charges 1 RU a request), and <c>bound</c> stops the
/// writers by itself.
/// </remarks>
internal sealed class SustainedWriter : IAsyncDisposable
{
    private const int Writers = 2;
    private readonly CancellationTokenSource _stop = new();
    private readonly Stopwatch _clock = Stopwatch.StartNew();
    private readonly Lock _chargeLock = new();
    private readonly Task _writing;
    private long _writes;
    private double _charge;

    private SustainedWriter(Container view, int count, int seed, TimeSpan interval, TimeSpan bound)
    {
        _stop.CancelAfter(bound);
        _writing = Task.WhenAll(Enumerable.Range(0, Writers).Select(w => Task.Run(() => WriteAsync(view, count, seed + w, w, interval), CancellationToken.None)));
    }

    /// <summary>The upserts done so far.</summary>
    public long Writes => Interlocked.Read(ref _writes);

    /// <summary>Whether the writers are still writing (neither stopped nor past their bound).</summary>
    public bool IsWriting => !_writing.IsCompleted;

    /// <summary>Request units per second charged to the writers since they started.</summary>
    public double RequestUnitsPerSecond
    {
        get
        {
            lock (_chargeLock)
            {
                return _charge / _clock.Elapsed.TotalSeconds;
            }
        }
    }

    /// <summary>Starts the writers over documents <c>0..count-1</c> of <see cref="MigrationScenario"/>.</summary>
    public static SustainedWriter Start(Container view, int count, int seed, TimeSpan interval, TimeSpan bound) => new(view, count, seed, interval, bound);

    /// <inheritdoc/>
    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync();
        await _writing;
        _clock.Stop();
        _stop.Dispose();
    }

    private async Task WriteAsync(Container view, int count, int seed, int writer, TimeSpan interval)
    {
        var random = new Random(seed);
        var versions = new int[count];
        while (!_stop.IsCancellationRequested)
        {
            int i = (2 * random.Next(count / 4)) + (writer * (count / 2));
            JObject document = Document(i, ++versions[i]);
            double charge = (await view.UpsertItemAsync(document, PartitionKeyOf(document), cancellationToken: CancellationToken.None)).RequestCharge;
            lock (_chargeLock)
            {
                _charge += charge;
            }

            Interlocked.Increment(ref _writes);
            try
            {
                await Task.Delay(interval, _stop.Token);
            }
            catch (OperationCanceledException)
            {
                return;
            }
        }
    }
}

using Microsoft.Extensions.Logging;

namespace Encryption.Custom;

/// <summary>How an <see cref="EncryptionMigrationJob"/> runs: its name in the lease container, parallelism, throughput budget.</summary>
public sealed class EncryptionMigrationOptions
{
    /// <summary>The default <see cref="ProcessorName"/>: <c>encryption-migration</c>.</summary>
    public const string DefaultProcessorName = "encryption-migration";

    /// <summary>The default <see cref="MaxDegreeOfParallelism"/>: 8.</summary>
    public const int DefaultMaxDegreeOfParallelism = 8;

    /// <summary>The default <see cref="MaxItemsPerBatch"/>: 100.</summary>
    public const int DefaultMaxItemsPerBatch = 100;

    private string _processorName = DefaultProcessorName;
    private string _instanceName = Environment.MachineName + "-" + Environment.ProcessId.ToString(System.Globalization.CultureInfo.InvariantCulture);
    private int _maxDegreeOfParallelism = DefaultMaxDegreeOfParallelism;
    private int _maxItemsPerBatch = DefaultMaxItemsPerBatch;
    private double? _requestUnitsPerSecond;
    private TimeSpan _pollInterval = TimeSpan.FromSeconds(1);
    private TimeSpan _progressInterval = TimeSpan.FromSeconds(5);
    private TimeSpan _leaseAcquireInterval = TimeSpan.FromSeconds(2);
    private TimeSpan _leaseExpirationInterval = DefaultLeaseExpirationInterval;

    // The change feed processor's own defaults: a lease expires 60 s after its last renewal, renewed every 17 s.
    internal static readonly TimeSpan DefaultLeaseExpirationInterval = TimeSpan.FromSeconds(60);
    internal static readonly TimeSpan MaxLeaseRenewInterval = TimeSpan.FromSeconds(17);

    // The bounds of LeaseExpirationInterval. Below 1 s the renewal (a third of it) would hammer the lease container and
    // a lease would expire within one slow round trip; above a day the SDK's timestamp arithmetic is no longer a
    // timeout anyone means (and a dead instance's leases would be held for longer than any migration should wait).
    internal static readonly TimeSpan MinLeaseExpirationInterval = TimeSpan.FromSeconds(1);
    internal static readonly TimeSpan MaxLeaseExpirationInterval = TimeSpan.FromDays(1);

    /// <summary>
    /// The change feed processor's name, which keys its leases (and so its checkpoints) in the lease container.
    /// Default <see cref="DefaultProcessorName"/>. Instances with the same name share the work; a restarted job
    /// with the same name resumes from the checkpoints. Use a new name for a new migration of the same container.
    /// </summary>
    /// <exception cref="ArgumentException">The value is null, empty or white space.</exception>
    public string ProcessorName
    {
        get => _processorName;
        set
        {
            ArgumentException.ThrowIfNullOrWhiteSpace(value);
            _processorName = value;
        }
    }

    /// <summary>This instance's name among those sharing the leases. Default: the machine name and the process id.</summary>
    /// <exception cref="ArgumentException">The value is null, empty or white space.</exception>
    public string InstanceName
    {
        get => _instanceName;
        set
        {
            ArgumentException.ThrowIfNullOrWhiteSpace(value);
            _instanceName = value;
        }
    }

    /// <summary>How many documents this instance rewrites at once, over all its leases. Default <see cref="DefaultMaxDegreeOfParallelism"/>.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not positive.</exception>
    public int MaxDegreeOfParallelism
    {
        get => _maxDegreeOfParallelism;
        set
        {
            ArgumentOutOfRangeException.ThrowIfNegativeOrZero(value);
            _maxDegreeOfParallelism = value;
        }
    }

    /// <summary>The change feed page size asked for. Default <see cref="DefaultMaxItemsPerBatch"/>.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not positive.</exception>
    public int MaxItemsPerBatch
    {
        get => _maxItemsPerBatch;
        set
        {
            ArgumentOutOfRangeException.ThrowIfNegativeOrZero(value);
            _maxItemsPerBatch = value;
        }
    }

    /// <summary>
    /// The data encryption keys documents may be encrypted with to be migrated, besides the target policy's key and its
    /// <see cref="ContainerEncryptionPolicy.AcceptedDataEncryptionKeyIds"/>. Default: empty. A document encrypted with
    /// any other key is reported (<see cref="EncryptionErrorKind.KeyNotAccepted"/>), never asked for. An empty or white
    /// space id is refused when the job is created.
    /// </summary>
    public IList<string> AcceptedSourceDataEncryptionKeyIds { get; } = new List<string>();

    /// <summary>
    /// The paths (<c>/name</c>) the job may decrypt: encrypted in documents of the container, but not by the target
    /// policy (or the target is "no encryption"). Default: empty. Before its first write the job reads the container
    /// once and refuses to run (<see cref="EncryptionErrorKind.InvalidOptions"/>, naming each path and how many
    /// documents it is encrypted in) if the target would store any other encrypted path's values as plaintext.
    /// </summary>
    public IList<string> AllowedDecryptPaths { get; } = new List<string>();

    /// <summary>
    /// The paths (<c>/name</c>) whose encryption type the job may change: deterministic in documents of the container and
    /// randomized in the target policy (equality queries on it stop finding them), or the other way round (equal values
    /// become visible as equal). Default: empty; any other such path makes the job refuse to run before its first
    /// write, as for <see cref="AllowedDecryptPaths"/>.
    /// </summary>
    public IList<string> AllowedEncryptionTypeChangePaths { get; } = new List<string>();

    /// <summary>
    /// This instance's throughput budget in request units per second, counted from the request charge of every
    /// response it causes (change feed pages, reads, writes, estimator and status queries). Default
    /// <see langword="null"/>: no budget (the service's 429 answers still slow the job down). Instances do not
    /// share a budget: give each its share.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not positive.</exception>
    public double? RequestUnitsPerSecond
    {
        get => _requestUnitsPerSecond;
        set
        {
            if (value is { } rate)
            {
                ArgumentOutOfRangeException.ThrowIfNegativeOrZero(rate);
            }

            _requestUnitsPerSecond = value;
        }
    }

    /// <summary>
    /// Whether a page's rewrites are all issued at once rather than <see cref="MaxDegreeOfParallelism"/> at a time,
    /// so that a client created with <c>CosmosClientOptions.AllowBulkExecution</c> groups them into bulk requests.
    /// Default <see langword="false"/>. The client is the caller's: the job cannot turn bulk on by itself. Give the
    /// job its lease container from a client without bulk: the change feed processor reads and checkpoints leases one
    /// at a time, and bulk would hold each of those requests back for its batch dispatch.
    /// </summary>
    public bool UseBulkExecution { get; set; }

    /// <summary>
    /// Whether <see cref="EncryptionMigrationJob.RunAsync"/> keeps following the change feed until cancelled instead
    /// of returning once caught up. Default <see langword="false"/>: it returns when the estimator reports no lag and
    /// this instance has nothing in flight.
    /// </summary>
    public bool RunUntilCancelled { get; set; }

    /// <summary>How long the processor waits before polling a caught-up lease again. Default 1 s.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not positive.</exception>
    public TimeSpan PollInterval
    {
        get => _pollInterval;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(value, TimeSpan.Zero);
            _pollInterval = value;
        }
    }

    /// <summary>
    /// How often each instance's change feed processor balances the leases: takes unowned or expired ones, and takes one
    /// from the busiest instance while it holds fewer than its share. Default 2 s (the SDK's own default is 13 s, at
    /// which an instance started beside a running one took a lease every 13 s: two instances were no faster than one,
    /// and of four one got none, docs/benchmarks.md). Each balancing reads the lease container (a few RU).
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not positive.</exception>
    public TimeSpan LeaseAcquireInterval
    {
        get => _leaseAcquireInterval;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(value, TimeSpan.Zero);
            _leaseAcquireInterval = value;
        }
    }

    /// <summary>
    /// How long a lease stays with an instance after its last renewal: when an instance dies (killed, its machine lost)
    /// without releasing its leases, the others' change feed processors take them over once this has passed, and until
    /// then the documents behind those leases wait. Default 60 s (the SDK's default). Each instance renews its leases
    /// every third of this, at most every 17 s (the SDK's default renewal): 60 s renews every 17 s, 15 s every 5 s.
    /// Give every instance sharing the leases the same value: an instance judges the others' leases by its own. A
    /// lease's time is the clock of the machine that renewed it, so keep this well above the clock skew between the
    /// instances' machines, and above a renewal's round trip (a renewal that fails twice in a row loses the lease).
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is shorter than 1 s or longer than a day.</exception>
    public TimeSpan LeaseExpirationInterval
    {
        get => _leaseExpirationInterval;
        set
        {
            ValidateLeaseExpirationInterval(value);
            _leaseExpirationInterval = value;
        }
    }

    /// <summary>How often this instance renews its leases: a third of <see cref="LeaseExpirationInterval"/>, at most 17 s.</summary>
    internal TimeSpan LeaseRenewInterval => RenewIntervalFor(_leaseExpirationInterval);

    /// <summary>The renewal for an expiration: a third of it, at most the SDK's default renewal (17 s).</summary>
    internal static TimeSpan RenewIntervalFor(TimeSpan expiration)
    {
        TimeSpan third = TimeSpan.FromTicks(expiration.Ticks / 3);    // rounded down: three renewals fit in the expiration
        return third < MaxLeaseRenewInterval ? third : MaxLeaseRenewInterval;
    }

    private static void ValidateLeaseExpirationInterval(TimeSpan value)
    {
        if (value < MinLeaseExpirationInterval || value > MaxLeaseExpirationInterval)
        {
            throw new ArgumentOutOfRangeException(
                nameof(value),
                value,
                $"{nameof(LeaseExpirationInterval)} must be from {MinLeaseExpirationInterval.TotalSeconds:0} s to {MaxLeaseExpirationInterval.TotalHours:0} hours; it was {value}.");
        }
    }

    /// <summary>How often progress is reported (and the estimator asked for the lag). Default 5 s.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not positive.</exception>
    public TimeSpan ProgressInterval
    {
        get => _progressInterval;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(value, TimeSpan.Zero);
            _progressInterval = value;
        }
    }

    /// <summary>
    /// The clock the job's budget, progress loop, verification and retry back-off run on. Default
    /// <see cref="TimeProvider.System"/>; a test gives a fake one. (The change feed processor's own polling and lease
    /// timers are the SDK's and stay on real time.)
    /// </summary>
    /// <exception cref="ArgumentNullException">The value is null.</exception>
    public TimeProvider TimeProvider
    {
        get;
        set => field = value ?? throw new ArgumentNullException(nameof(value));
    } = TimeProvider.System;

    /// <summary>Which processor decrypts and encrypts. Default <see cref="JsonProcessor.Stream"/>.</summary>
    public JsonProcessor JsonProcessor { get; set; } = JsonProcessor.Stream;

    /// <summary>
    /// Creates the job's logger (category <c>Encryption.Custom.EncryptionMigrationJob</c>), which receives start,
    /// stop, progress and per-document failure lines (ids and reasons, never values). Default <see langword="null"/>:
    /// nothing is logged.
    /// </summary>
    public ILoggerFactory? LoggerFactory { get; set; }
}

namespace Encryption.Custom.Performance.Tests.Migration.Model;

/// <summary>
/// What the migration model (<see cref="MigrationModel"/>) is asked about: the container, the account's limits, the
/// job's instances and what one document costs. Defaults describe 1 billion 1 KB documents at 150,000 RU/s on Cosmos
/// DB, with per-document costs from docs/migration.md ("Cost in request units per document").
/// </summary>
public sealed record MigrationWorkload
{
    /// <summary>Documents to rewrite.</summary>
    public long Documents { get; init; } = 1_000_000_000;

    /// <summary>Stored bytes per document (after encryption).</summary>
    public int DocumentBytes { get; init; } = 1024;

    /// <summary>The container's provisioned throughput, shared by every instance (each gets an equal budget).</summary>
    public double ContainerRequestUnitsPerSecond { get; init; } = 150_000;

    /// <summary>Instances of the job sharing the leases.</summary>
    public int Instances { get; init; } = 1;

    /// <summary>
    /// Request units of the replace that rewrites one document: about 6–10 RU for 1 KB with default indexing on Cosmos
    /// DB (docs/migration.md); the bundled endpoint charges 1.
    /// </summary>
    public double WriteRequestUnits { get; init; } = 8;

    /// <summary>Request units of reading one document once (its share of a change feed or query page).</summary>
    public double ReadRequestUnits { get; init; } = 1;

    /// <summary>
    /// How many times the rewriting reads each document: the change feed brings it once, and once more when its own
    /// rewrite comes back (docs/migration.md).
    /// </summary>
    public double ReadsPerDocument { get; init; } = 2;

    /// <summary>
    /// Whole-container scans each instance makes on its own on top of the rewriting, each a query over every document
    /// charged to that instance's budget. None since the survey and the verification are shared (<see cref="ScansPerJob"/>);
    /// set it to 1 for a job whose instances each verify the whole container (the job before the shared verification).
    /// </summary>
    public double ScansPerInstance { get; init; }

    /// <summary>
    /// Whole-container scans made once per job, split by feed range over the instances (each range by one instance,
    /// under that instance's budget share): the survey before the first write and one verification round at the end
    /// (docs/migration.md, "Scans shared by the instances"). A job whose verification finds documents to sweep makes
    /// another round after the sweep.
    /// </summary>
    public double ScansPerJob { get; init; } = 2;

    /// <summary>Round-trip time of one replace as a client sees it, in milliseconds (same region: a few ms).</summary>
    public double WriteLatencyMilliseconds { get; init; } = 6;

    /// <summary>Replaces one instance has in flight (<c>EncryptionMigrationOptions.MaxDegreeOfParallelism</c>).</summary>
    public int MaxDegreeOfParallelism { get; init; } = 8;

    /// <summary>CPU time one document costs the instance (SDK request, decrypt, encrypt), in microseconds.</summary>
    public double CpuMicrosecondsPerDocument { get; init; } = 150;

    /// <summary>Cores each instance's process can use.</summary>
    public int CoresPerInstance { get; init; } = 2;

    /// <summary>Most request units per second one physical partition serves (Cosmos DB: 10,000).</summary>
    public double RequestUnitsPerPartition { get; init; } = 10_000;

    /// <summary>Most bytes one physical partition stores (Cosmos DB: 50 GB).</summary>
    public long BytesPerPartition { get; init; } = 50L * 1024 * 1024 * 1024;

    /// <summary>Request units of the rewriting's reads and the rewrite of one document (the scans are counted apart).</summary>
    public double RequestUnitsPerDocument => WriteRequestUnits + (ReadRequestUnits * ReadsPerDocument);
}

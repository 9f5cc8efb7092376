namespace Encryption.Custom.Performance.Tests.Migration.Model;

/// <summary>What limits one instance's rate of rewrites (the smallest of its ceilings).</summary>
public enum MigrationBound
{
    /// <summary>Replaces in flight ÷ their latency.</summary>
    Latency,

    /// <summary>Cores ÷ CPU time per document.</summary>
    Cpu,

    /// <summary>The instance's share of the container's request units.</summary>
    Budget,

    /// <summary>The request units of the physical partitions whose leases the instance holds.</summary>
    Partitions,
}

/// <summary>The model's answer for one <see cref="MigrationWorkload"/>.</summary>
/// <param name="PhysicalPartitions">Partitions the container has: by throughput or by size, whichever needs more.</param>
/// <param name="ActiveInstances">Instances that hold a lease (the change feed processor gives each partition's lease to one instance).</param>
/// <param name="MostLeasesPerInstance">Leases of the busiest instance.</param>
/// <param name="DocumentsPerSecondPerInstance">The busiest instance's rate.</param>
/// <param name="Bound">What limits that rate.</param>
/// <param name="Seconds">Time until the busiest instance has scanned the container and rewritten its share.</param>
/// <param name="RequestUnits">Request units the whole migration spends.</param>
public sealed record MigrationEstimate(
    int PhysicalPartitions,
    int ActiveInstances,
    int MostLeasesPerInstance,
    double DocumentsPerSecondPerInstance,
    MigrationBound Bound,
    double Seconds,
    double RequestUnits)
{
    /// <summary>Of <see cref="Seconds"/>, the busiest instance's scans: its part of the shared survey, and its verification.</summary>
    public double ScanSeconds { get; init; }

    /// <summary><see cref="Seconds"/> in hours.</summary>
    public double Hours => Seconds / 3600;
}

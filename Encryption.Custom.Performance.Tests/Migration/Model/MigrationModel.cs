namespace Encryption.Custom.Performance.Tests.Migration.Model;

/// <summary>
/// How long the migration job takes on a container too large to try (docs/migration.md, "A billion documents"). The
/// job is a change feed processor: the container's feed has one lease per physical partition, each lease is worked by
/// one instance at a time, and each instance rewrites at most <c>MaxDegreeOfParallelism</c> documents at once over all
/// its leases, within its own request-unit budget. So the busiest instance decides the time:
/// <code>
/// partitions P  = max(⌈RU/s ÷ RU per partition⌉, ⌈documents × bytes ÷ bytes per partition⌉)
/// leases        = ⌈P ÷ instances⌉ for the busiest instance (instances beyond P hold none)
/// rate          = min(parallelism ÷ latency, cores ÷ CPU per document,
///                     (RU/s ÷ instances) ÷ RU per document, leases × (RU/s ÷ P) ÷ RU per document)
/// shared scans  = scans per job × ⌈P ÷ min(instances, P)⌉ × (documents ÷ P) × RU per read ÷ (RU/s ÷ instances)
/// own scans     = scans per instance × documents × RU per read ÷ (RU/s ÷ instances)
/// time          = shared scans + own scans + leases × (documents ÷ P) ÷ rate
/// </code>
/// The survey before the first write and the verification at the end are shared: each feed range (one per physical
/// partition) is scanned by one instance, so the job reads the container once per scan at about the container's whole
/// budget, whatever the instance count. Scans per instance (a job whose instances each verify everything) grow with
/// the instances: adding instances then shortens the rewriting but lengthens each one's scans.
/// Documents are assumed spread evenly over partitions (a hash partition key); Cosmos DB divides a container's
/// throughput evenly among its physical partitions; each instance's budget is an equal share of the container's
/// (instances do not share a budget: docs/migration.md, "Budget").
/// </summary>
public static class MigrationModel
{
    /// <summary>Estimates one workload.</summary>
    /// <exception cref="ArgumentOutOfRangeException">A count or cost is not positive.</exception>
    public static MigrationEstimate Estimate(MigrationWorkload workload)
    {
        ArgumentNullException.ThrowIfNull(workload);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(workload.Documents);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(workload.Instances);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(workload.ContainerRequestUnitsPerSecond);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(workload.RequestUnitsPerDocument);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(workload.WriteLatencyMilliseconds);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(workload.CpuMicrosecondsPerDocument);

        int byThroughput = (int)Math.Ceiling(workload.ContainerRequestUnitsPerSecond / workload.RequestUnitsPerPartition);
        int bySize = (int)Math.Ceiling((double)workload.Documents * workload.DocumentBytes / workload.BytesPerPartition);
        int partitions = Math.Max(1, Math.Max(byThroughput, bySize));
        int active = Math.Min(workload.Instances, partitions);
        int leases = (partitions + active - 1) / active;

        double ruPerDocument = workload.RequestUnitsPerDocument;
        (double Rate, MigrationBound Bound)[] ceilings =
        [
            (workload.MaxDegreeOfParallelism / (workload.WriteLatencyMilliseconds / 1000), MigrationBound.Latency),
            (workload.CoresPerInstance / (workload.CpuMicrosecondsPerDocument / 1_000_000), MigrationBound.Cpu),
            (workload.ContainerRequestUnitsPerSecond / workload.Instances / ruPerDocument, MigrationBound.Budget),
            (leases * (workload.ContainerRequestUnitsPerSecond / partitions) / ruPerDocument, MigrationBound.Partitions),
        ];
        (double rate, MigrationBound bound) = ceilings.MinBy(c => c.Rate);

        double documentsPerLease = (double)workload.Documents / partitions;
        double share = workload.ContainerRequestUnitsPerSecond / workload.Instances;
        double sharedScanSeconds = workload.ScansPerJob * leases * documentsPerLease * workload.ReadRequestUnits / share;
        double scanSeconds = sharedScanSeconds + (workload.ScansPerInstance * workload.Documents * workload.ReadRequestUnits / share);
        double seconds = scanSeconds + (leases * documentsPerLease / rate);
        double requestUnits = (workload.Documents * ruPerDocument) + (((workload.Instances * workload.ScansPerInstance) + workload.ScansPerJob) * workload.Documents * workload.ReadRequestUnits);
        return new MigrationEstimate(partitions, active, leases, rate, bound, seconds, requestUnits) { ScanSeconds = scanSeconds };
    }

    /// <summary>The fewest instances (up to <paramref name="maxInstances"/>) that finish within <paramref name="deadline"/>, or null.</summary>
    public static int? FewestInstancesWithin(MigrationWorkload workload, TimeSpan deadline, int maxInstances = 1024)
    {
        ArgumentNullException.ThrowIfNull(workload);
        for (int instances = 1; instances <= maxInstances; instances++)
        {
            if (Estimate(workload with { Instances = instances }).Seconds <= deadline.TotalSeconds)
            {
                return instances;
            }
        }

        return null;
    }

    /// <summary>
    /// The smallest container budget (in steps of 1,000 RU/s) at which
    /// some number of instances finishes within <paramref name="deadline"/>: the request units alone need
    /// documents × RU per document ÷ seconds; more instances are then added until they do not bind.
    /// </summary>
    public static (double RequestUnitsPerSecond, int Instances)? SmallestBudgetWithin(MigrationWorkload workload, TimeSpan deadline, int maxInstances = 1024)
    {
        ArgumentNullException.ThrowIfNull(workload);
        // One instance's request units: the rewriting and its scans. More instances scan more, so the search goes well
        // past this floor (the verification of each instance grows with the instances, the rewriting's time shrinks).
        double floor = workload.Documents * (workload.RequestUnitsPerDocument + ((workload.ScansPerInstance + workload.ScansPerJob) * workload.ReadRequestUnits)) / deadline.TotalSeconds;
        for (double budget = Math.Ceiling(floor / 1000) * 1000; budget <= floor * 64; budget += Math.Max(1000, Math.Floor(budget / 100_000) * 1000))
        {
            if (FewestInstancesWithin(workload with { ContainerRequestUnitsPerSecond = budget }, deadline, maxInstances) is int instances)
            {
                return (budget, instances);
            }
        }

        return null;
    }
}

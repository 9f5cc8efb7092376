using Encryption.Custom.Performance.Tests.Migration.Model;

namespace Encryption.Custom.Tests.Performance.Migration;

/// <summary>The migration model's arithmetic (docs/migration.md, "A billion documents"), worked by hand.</summary>
public sealed class MigrationModelTests
{
    private static readonly MigrationWorkload s_billion = new();

    [Fact]
    public void Estimate_Defaults_PartitionsBySizeAndTenInstancesLatencyBound()
    {
        // 1e9 × 1,024 B ÷ 50 GiB (53,687,091,200 B) = 19.07 → 20 partitions by size; by throughput 150,000 ÷ 10,000
        // = 15. Latency: 8 in flight ÷ 6 ms = 1,333 documents/s. The survey and the verification are shared: in each,
        // the busiest instance scans its 2 of the 20 ranges (5e7 documents each) at its budget share, 150,000 ÷ 10 RU/s.
        MigrationEstimate estimate = MigrationModel.Estimate(s_billion with { Instances = 10 });

        Assert.Equal(20, estimate.PhysicalPartitions);
        Assert.Equal(10, estimate.ActiveInstances);
        Assert.Equal(2, estimate.MostLeasesPerInstance);
        Assert.Equal(MigrationBound.Latency, estimate.Bound);
        Assert.Equal(8 / 0.006, estimate.DocumentsPerSecondPerInstance, 6);
        double scans = 2 * (2 * 5e7 / 15_000);
        Assert.Equal(scans, estimate.ScanSeconds, 3);
        Assert.Equal(scans + (2 * (1e9 / 20) / (8 / 0.006)), estimate.Seconds, 3);
        Assert.Equal((1e9 * 10) + (2 * 1e9), estimate.RequestUnits);
    }

    [Fact]
    public void Estimate_TheSharedSurvey_TakesAboutOneScanAtTheWholeBudget_WhateverTheInstanceCount()
    {
        // With ranges spread evenly (instances dividing the partitions), one survey of 1e9 RU at 150,000 RU/s.
        MigrationWorkload surveyOnly = s_billion with { ScansPerJob = 1 };

        foreach (int instances in new[] { 1, 2, 4, 5, 10, 20 })
        {
            Assert.Equal(1e9 / 150_000, MigrationModel.Estimate(surveyOnly with { Instances = instances }).ScanSeconds, 3);
        }

        // Three instances over 20 ranges: the busiest surveys 7 of them at a third of the budget.
        Assert.Equal(7 * 5e7 / 50_000, MigrationModel.Estimate(surveyOnly with { Instances = 3 }).ScanSeconds, 3);
    }

    [Fact]
    public void Estimate_MoreInstancesThanPartitions_TheRestHoldNoLeaseAndTheirBudgetIsUnused()
    {
        MigrationEstimate estimate = MigrationModel.Estimate(s_billion with { Instances = 40 });

        Assert.Equal(20, estimate.ActiveInstances);
        Assert.Equal(1, estimate.MostLeasesPerInstance);
        Assert.Equal(MigrationBound.Budget, estimate.Bound);
        Assert.Equal(150_000.0 / 40 / 10, estimate.DocumentsPerSecondPerInstance, 6);
    }

    [Fact]
    public void Estimate_ThroughputAboveWhatSizeNeeds_PartitionsByThroughputAndTheirShareBinds()
    {
        // 1 million documents are 1 GB (one partition by size); 50,000 RU/s need 5 partitions of 10,000 RU/s.
        MigrationWorkload small = s_billion with { Documents = 1_000_000, ContainerRequestUnitsPerSecond = 50_000, Instances = 5, WriteLatencyMilliseconds = 0.5, CpuMicrosecondsPerDocument = 10 };

        MigrationEstimate estimate = MigrationModel.Estimate(small);

        Assert.Equal(5, estimate.PhysicalPartitions);
        Assert.Equal(1, estimate.MostLeasesPerInstance);
        Assert.Equal(10_000.0 / 10, estimate.DocumentsPerSecondPerInstance, 6);
        // Its share of the survey and of the verification (1 of 5 ranges each) at a fifth of the budget, then its lease.
        Assert.Equal((2 * 200_000 / 10_000.0) + (200_000 / (10_000.0 / 10)), estimate.Seconds, 3);
    }

    [Fact]
    public void Estimate_CpuHeavyDocuments_AreCpuBound()
    {
        MigrationEstimate estimate = MigrationModel.Estimate(s_billion with { CpuMicrosecondsPerDocument = 5_000, Instances = 20 });

        Assert.Equal(MigrationBound.Cpu, estimate.Bound);
        Assert.Equal(2 / 0.005, estimate.DocumentsPerSecondPerInstance, 6);
    }

    [Fact]
    public void FewestInstancesWithin_IsTheFirstCountThatMakesIt_AndNoneWhenTheScansOrTheBudgetBind()
    {
        // With the survey and the verification shared (two scans per job, none per instance: the defaults), a count
        // makes it; with every instance verifying on its own, as the job did before, no count does: each instance
        // added shortens the rewriting and lengthens every instance's verification (1.9 h per instance at 150,000 RU/s).
        MigrationWorkload sharedScans = s_billion;
        int? fewest = MigrationModel.FewestInstancesWithin(sharedScans, TimeSpan.FromHours(24));

        Assert.NotNull(fewest);
        Assert.Equal(20, fewest.Value); // 22.2 h: one lease each, at its budget share of 7,500 RU/s
        Assert.True(MigrationModel.Estimate(sharedScans with { Instances = fewest.Value }).Hours <= 24);
        Assert.All(Enumerable.Range(1, fewest.Value - 1), n => Assert.True(MigrationModel.Estimate(sharedScans with { Instances = n }).Hours > 24));
        Assert.Null(MigrationModel.FewestInstancesWithin(s_billion with { ScansPerInstance = 1, ScansPerJob = 1 }, TimeSpan.FromHours(24), maxInstances: 64));

        // 1e10 RU in 24 h need 115,741 RU/s: 100,000 cannot make it with any number of instances.
        Assert.Null(MigrationModel.FewestInstancesWithin(sharedScans with { ContainerRequestUnitsPerSecond = 100_000 }, TimeSpan.FromHours(24), maxInstances: 64));
    }

    [Fact]
    public void SmallestBudgetWithin_IsAtLeastTheRequestUnitFloor_AndMakesTheDeadline()
    {
        (double budget, int instances) = MigrationModel.SmallestBudgetWithin(s_billion, TimeSpan.FromHours(24)) ?? throw new InvalidOperationException("no budget found");

        Assert.True(budget >= 1e9 * 12 / 86_400);
        Assert.True(MigrationModel.Estimate(s_billion with { ContainerRequestUnitsPerSecond = budget, Instances = instances }).Hours <= 24);
        Assert.True(MigrationModel.FewestInstancesWithin(s_billion with { ContainerRequestUnitsPerSecond = budget * 0.9 }, TimeSpan.FromHours(24)) is null);
    }
}

using Encryption.Custom.Json;

namespace Encryption.Custom.Performance.Tests.Scaling;

/// <summary>
/// One step of the scaling check: the same processor and operation at a size and at the next, larger one, with the
/// best CPU time per operation at each. <see cref="Allowed"/> is linear growth with a margin for what is not linear
/// on a real machine (caches, the garbage collector's large-object heap): 5× for a 4× step.
/// </summary>
public sealed record ScalingStep(
    JsonProcessor Processor,
    ScalingOperation Operation,
    int SmallSize,
    int LargeSize,
    int SmallPaths,
    int LargePaths,
    double SmallNanoseconds,
    double LargeNanoseconds,
    double MaxStepPerFourfold)
{
    public double SizeRatio => LargeSize / (double)SmallSize;

    public double CostRatio => LargeNanoseconds / SmallNanoseconds;

    public double Allowed => SizeRatio * MaxStepPerFourfold / 4;

    public bool Passed => CostRatio <= Allowed;
}

using Encryption.Custom.Json;

namespace Encryption.Custom.Performance.Tests.Scaling;

/// <summary>
/// One step of the scaling check: the same processor and operation at a size and at the next, larger one, with the
/// best CPU time per operation at each. <see cref="Allowed"/> is linear growth with a margin for what is not linear
/// on a real machine (caches, the garbage collector's large-object heap): 5× for a 4× step. The full collections
/// per operation at each size are there to explain a step, not to judge it. A step is not judged when the larger
/// document is past the size up to which the processor's cost is the code's own (<see cref="ScalingCheck"/>).
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
    double SmallFullCollections,
    double LargeFullCollections,
    double MaxStepPerFourfold,
    bool ThreadClock,
    bool Judged = true)
{
    public double SizeRatio => LargeSize / (double)SmallSize;

    public double CostRatio => LargeNanoseconds / SmallNanoseconds;

    public double Allowed => SizeRatio * MaxStepPerFourfold / 4;

    /// <summary>True when the step is within its limit, or not judged.</summary>
    public bool Passed => !Judged || CostRatio <= Allowed;

    /// <summary>The CPU clock both sizes were timed with (<see cref="InterleavedCpuTimer"/>).</summary>
    public string Clock => ThreadClock ? "thread" : "process";

    public string Result => !Judged ? "not judged" : Passed ? "pass" : "FAIL";
}

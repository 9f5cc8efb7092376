using System.Runtime.CompilerServices;

namespace Encryption.Custom.Native.Memory;

/// <summary>The platform error of each <see cref="KeyMemoryFeature"/> refused while mapping one region.</summary>
[InlineArray(FeatureCount)]
internal struct KeyMemoryFailures
{
    public const int FeatureCount = (int)KeyMemoryFeature.GuardedMapping + 1;

    // Zero means "not refused"; a refusal without an error code is stored as -1.
    private int _errorCode;

    public void Record(KeyMemoryFeature feature, int errorCode) =>
        this[(int)feature] = errorCode == 0 ? -1 : errorCode;

    public readonly bool TryGet(KeyMemoryFeature feature, out int errorCode)
    {
        errorCode = this[(int)feature];
        return errorCode != 0;
    }
}

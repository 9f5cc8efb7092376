using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Performance.Tests.Documents;

namespace Encryption.Custom.Performance.Tests.Allocation;

/// <summary>One line of the allocation report: steady-state bytes allocated per operation for one case.</summary>
/// <param name="Processor">The processor.</param>
/// <param name="Api">The overloads used.</param>
/// <param name="Operation">Encrypt or decrypt.</param>
/// <param name="Shape">The document shape.</param>
/// <param name="Size">The plaintext document's size (the row's nominal size).</param>
/// <param name="InputBytes">What the operation was handed: the plaintext to encrypt, or the encrypted document to decrypt.</param>
/// <param name="OutputBytes">What it wrote.</param>
/// <param name="AllocatedBytesPerOp">Managed bytes allocated per operation on the calling thread (the lowest round).</param>
/// <param name="Gen2Collections">Gen 2 collections during the measured rounds (Large Object Heap allocations trigger them).</param>
/// <param name="RoundTrips">Whether decrypting gave back the original document.</param>
public sealed record AllocationRow(
    JsonProcessor Processor,
    ProcessorApi Api,
    DocumentOperation Operation,
    DocumentShape Shape,
    int Size,
    int InputBytes,
    int OutputBytes,
    long AllocatedBytesPerOp,
    int Gen2Collections,
    bool RoundTrips)
{
    /// <summary>Allocation as a percentage of the input (the plaintext for encrypt, the encrypted document for decrypt).</summary>
    public double OverheadPercent => AllocatedBytesPerOp * 100.0 / InputBytes;

    public double BytesPerInputKilobyte => AllocatedBytesPerOp * 1024.0 / InputBytes;

    /// <summary>Whether <paramref name="other"/> is the same case through another processor.</summary>
    public bool IsSameCase(AllocationRow other) =>
        other.Api == Api && other.Operation == Operation && other.Shape == Shape && other.Size == Size;
}

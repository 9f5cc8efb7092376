using System.Runtime.InteropServices;

namespace Encryption.Custom.Native.Memory;

/// <summary>Maps page-aligned regions for key memory with the best protections the platform grants.</summary>
internal abstract class PageAllocator
{
    /// <summary>Maps <paramref name="length"/> bytes (a multiple of the page size), zeroed.</summary>
    /// <param name="length">Whole pages.</param>
    /// <param name="failures">Receives every protection the platform refused.</param>
    /// <param name="region">The mapped region.</param>
    /// <returns><see langword="false"/> when no region could be mapped at all (recorded as <see cref="KeyMemoryFeature.GuardedMapping"/>).</returns>
    public abstract bool TryAllocate(int length, ref KeyMemoryFailures failures, out ProtectedRegion region);

    /// <summary>Zeroes and unmaps a region this allocator mapped.</summary>
    public abstract void Free(in ProtectedRegion region);

    /// <summary>The allocator for this operating system and architecture, or the plain heap when none fits.</summary>
    public static PageAllocator CreateForCurrentPlatform()
    {
        // The libc constants in Interop/LibC.cs are the asm-generic / x86-64 values.
        bool genericLinuxAbi = RuntimeInformation.ProcessArchitecture is Architecture.X64 or Architecture.Arm64;
        if (OperatingSystem.IsLinux() && genericLinuxAbi)
        {
            return new LinuxPageAllocator(LinuxMemoryCalls.Platform);
        }

        if (OperatingSystem.IsWindows())
        {
            return new WindowsPageAllocator();
        }

        return new HeapPageAllocator();
    }
}

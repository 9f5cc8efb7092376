using System.Runtime.Versioning;
using System.Security.Cryptography;
using Encryption.Custom.Native.Memory.Interop;

namespace Encryption.Custom.Native.Memory;

/// <summary>
/// Linux: one <c>PROT_NONE</c> reservation per region whose first and last pages stay as guard pages; the pages
/// between are <c>memfd_secret</c> pages mapped over the reservation when the kernel allows it, otherwise private
/// anonymous pages. Then <c>mlock</c>, <c>MADV_DONTDUMP</c> and <c>MADV_WIPEONFORK</c> (<c>MADV_DONTFORK</c> for
/// the shared secret mapping), each reported when refused.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed unsafe class LinuxPageAllocator : PageAllocator
{
    private readonly LinuxMemoryCalls _calls;

    /// <summary>Creates an allocator over <paramref name="calls"/> (<see cref="LinuxMemoryCalls.Platform"/> outside tests).</summary>
    public LinuxPageAllocator(LinuxMemoryCalls calls)
    {
        _calls = calls;
    }

    public override bool TryAllocate(int length, ref KeyMemoryFailures failures, out ProtectedRegion region)
    {
        region = default;
        nuint pageSize = (nuint)Environment.SystemPageSize;
        nuint dataLength = (nuint)length;
        nuint mappingLength = dataLength + (2 * pageSize);

        int reserveError = _calls.Reserve(mappingLength, out byte* mappingBase);
        if (reserveError != 0)
        {
            failures.Record(KeyMemoryFeature.GuardedMapping, reserveError);
            return false;
        }

        byte* data = mappingBase + pageSize;
        KeyMemoryProtection protection = KeyMemoryProtection.GuardPages;

        int secretError = _calls.MapSecret(data, dataLength);
        if (secretError == 0)
        {
            protection |= KeyMemoryProtection.SecretMemory;
        }
        else
        {
            failures.Record(KeyMemoryFeature.SecretMemory, secretError);

            // A fresh MAP_FIXED mapping rather than mprotect: a failed MAP_FIXED attempt may have left a hole.
            int anonymousError = _calls.MapAnonymous(data, dataLength);
            if (anonymousError != 0)
            {
                failures.Record(KeyMemoryFeature.GuardedMapping, anonymousError);
                _calls.Unmap(mappingBase, mappingLength);
                return false;
            }
        }

        // Secret pages are locked by the kernel at mmap (VM_LOCKED, charged to RLIMIT_MEMLOCK); mlock on them
        // fails with ENOMEM because the kernel refuses to populate them through get_user_pages.
        int lockError = (protection & KeyMemoryProtection.SecretMemory) != 0 ? 0 : _calls.Lock(data, dataLength);
        if (lockError == 0)
        {
            protection |= KeyMemoryProtection.Locked;
        }
        else
        {
            failures.Record(KeyMemoryFeature.Locking, lockError);
        }

        int dumpError = _calls.Advise(data, dataLength, LibC.MadvDontDump);
        if (dumpError == 0)
        {
            protection |= KeyMemoryProtection.ExcludedFromDumps;
        }
        else
        {
            failures.Record(KeyMemoryFeature.DumpExclusion, dumpError);
        }

        // WIPEONFORK only applies to private anonymous pages; the shared secret mapping is kept out of the child instead.
        int forkAdvice = (protection & KeyMemoryProtection.SecretMemory) != 0 ? LibC.MadvDontFork : LibC.MadvWipeOnFork;
        int forkError = _calls.Advise(data, dataLength, forkAdvice);
        if (forkError == 0)
        {
            protection |= KeyMemoryProtection.WipedOnFork;
        }
        else
        {
            failures.Record(KeyMemoryFeature.ForkProtection, forkError);
        }

        region = new ProtectedRegion(data, length, protection, mappingBase, mappingLength);
        return true;
    }

    public override void Free(in ProtectedRegion region)
    {
        CryptographicOperations.ZeroMemory(region.Bytes);
        _calls.Unmap(region.MappingBase, region.MappingLength);
    }
}

using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Security.Cryptography;

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
    private readonly ProtectedMemoryFaults _faults;

    // Set once the kernel says memfd_secret cannot work at all here, so later regions skip the syscall.
    private volatile int _secretMemoryError;

    public LinuxPageAllocator(ProtectedMemoryFaults faults)
    {
        _faults = faults;
    }

    public override bool TryAllocate(int length, ref KeyMemoryFailures failures, out ProtectedRegion region)
    {
        region = default;
        nuint pageSize = (nuint)Environment.SystemPageSize;
        nuint dataLength = (nuint)length;
        nuint mappingLength = dataLength + (2 * pageSize);

        if (Has(ProtectedMemoryFaults.MappingUnavailable))
        {
            failures.Record(KeyMemoryFeature.GuardedMapping, LibC.ENOMEM);
            return false;
        }

        // MAP_NORESERVE: the reservation itself commits nothing; only the data pages become usable.
        byte* mappingBase = (byte*)LibC.Mmap(null, mappingLength, LibC.ProtNone, LibC.MapPrivate | LibC.MapAnonymous | LibC.MapNoReserve, -1, 0);
        if (mappingBase == LibC.MapFailed)
        {
            failures.Record(KeyMemoryFeature.GuardedMapping, Marshal.GetLastPInvokeError());
            return false;
        }

        byte* data = mappingBase + pageSize;
        KeyMemoryProtection protection = KeyMemoryProtection.GuardPages;

        if (TryMapSecretMemory(data, dataLength, out int secretError))
        {
            protection |= KeyMemoryProtection.SecretMemory;
        }
        else
        {
            failures.Record(KeyMemoryFeature.SecretMemory, secretError);

            // A fresh MAP_FIXED mapping rather than mprotect: a failed MAP_FIXED attempt may have left a hole.
            void* anonymous = LibC.Mmap(data, dataLength, LibC.ProtRead | LibC.ProtWrite, LibC.MapPrivate | LibC.MapAnonymous | LibC.MapFixed, -1, 0);
            if (anonymous == LibC.MapFailed)
            {
                failures.Record(KeyMemoryFeature.GuardedMapping, Marshal.GetLastPInvokeError());
                _ = LibC.Munmap(mappingBase, mappingLength);
                return false;
            }
        }

        // Secret pages are locked by the kernel at mmap (VM_LOCKED, charged to RLIMIT_MEMLOCK); mlock on them
        // fails with ENOMEM because the kernel refuses to populate them through get_user_pages.
        int lockError = (protection & KeyMemoryProtection.SecretMemory) != 0 ? 0
            : Has(ProtectedMemoryFaults.LockRefused) ? LibC.ENOMEM
            : ErrorOf(LibC.Mlock(data, dataLength));
        if (lockError == 0)
        {
            protection |= KeyMemoryProtection.Locked;
        }
        else
        {
            failures.Record(KeyMemoryFeature.Locking, lockError);
        }

        int dumpError = Has(ProtectedMemoryFaults.DumpExclusionRefused) ? LibC.EINVAL : ErrorOf(LibC.Madvise(data, dataLength, LibC.MadvDontDump));
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
        int forkError = Has(ProtectedMemoryFaults.ForkProtectionRefused) ? LibC.EINVAL : ErrorOf(LibC.Madvise(data, dataLength, forkAdvice));
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

        // munmap drops the lock too, and a failure here leaves nothing to recover: the bytes are already zero.
        _ = LibC.Munmap(region.MappingBase, region.MappingLength);
    }

    private bool TryMapSecretMemory(byte* data, nuint length, out int error)
    {
        error = _secretMemoryError;
        if (error != 0)
        {
            return false;
        }

        if (Has(ProtectedMemoryFaults.SecretMemoryUnavailable))
        {
            error = LibC.ENOSYS;
            return false;
        }

        // The kernel charges secret pages to RLIMIT_MEMLOCK, so a refused lock refuses them too (EAGAIN from mmap).
        if (Has(ProtectedMemoryFaults.LockRefused))
        {
            error = LibC.EAGAIN;
            return false;
        }

        int fd = (int)LibC.Syscall(LibC.SysMemfdSecret, LibC.OCloExec);
        if (fd < 0)
        {
            error = Marshal.GetLastPInvokeError();

            // ENOSYS (old kernel, or secretmem disabled), EPERM (seccomp), EINVAL: will not change while we run.
            _secretMemoryError = error;
            return false;
        }

        try
        {
            if (LibC.Ftruncate(fd, (long)length) != 0)
            {
                error = Marshal.GetLastPInvokeError();
                return false;
            }

            // MAP_FIXED replaces the PROT_NONE pages between the guards; the mapping keeps the file alive after close.
            void* mapped = LibC.Mmap(data, length, LibC.ProtRead | LibC.ProtWrite, LibC.MapShared | LibC.MapFixed, fd, 0);
            if (mapped == LibC.MapFailed)
            {
                error = Marshal.GetLastPInvokeError();
                return false;
            }

            return true;
        }
        finally
        {
            _ = LibC.Close(fd);
        }
    }

    private bool Has(ProtectedMemoryFaults fault) => (_faults & fault) != 0;

    // errno of a failed libc call that returns 0 on success (a failure without errno still reads as one).
    private static int ErrorOf(int result) => result == 0 ? 0 : Math.Max(1, Marshal.GetLastPInvokeError());
}

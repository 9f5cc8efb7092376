using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Security.Cryptography;
using Encryption.Custom.Native.Memory.Interop;

namespace Encryption.Custom.Native.Memory;

/// <summary>
/// Windows: one <c>VirtualAlloc</c> per region whose first and last pages become <c>PAGE_NOACCESS</c> guards,
/// the pages between locked with <c>VirtualLock</c>. Windows has no per-region dump exclusion or fork, so those
/// protections are not claimed.
/// </summary>
[SupportedOSPlatform("windows")]
internal sealed unsafe class WindowsPageAllocator : PageAllocator
{
    public override bool TryAllocate(int length, ref KeyMemoryFailures failures, out ProtectedRegion region)
    {
        region = default;
        nuint pageSize = (nuint)Environment.SystemPageSize;
        nuint dataLength = (nuint)length;
        nuint mappingLength = dataLength + (2 * pageSize);

        byte* mappingBase = (byte*)Kernel32.VirtualAlloc(null, mappingLength, Kernel32.MemReserve | Kernel32.MemCommit, Kernel32.PageReadWrite);
        if (mappingBase == null)
        {
            failures.Record(KeyMemoryFeature.GuardedMapping, Marshal.GetLastPInvokeError());
            return false;
        }

        byte* data = mappingBase + pageSize;
        if (!Kernel32.VirtualProtect(mappingBase, pageSize, Kernel32.PageNoAccess, out _)
            || !Kernel32.VirtualProtect(data + dataLength, pageSize, Kernel32.PageNoAccess, out _))
        {
            failures.Record(KeyMemoryFeature.GuardedMapping, Marshal.GetLastPInvokeError());
            _ = Kernel32.VirtualFree(mappingBase, 0, Kernel32.MemRelease);
            return false;
        }

        KeyMemoryProtection protection = KeyMemoryProtection.GuardPages;

        // VirtualLock is bounded by the process's minimum working set; past it, the pages stay pageable.
        int lockError = Kernel32.VirtualLock(data, dataLength) ? 0 : Math.Max(1, Marshal.GetLastPInvokeError());
        if (lockError == 0)
        {
            protection |= KeyMemoryProtection.Locked;
        }
        else
        {
            failures.Record(KeyMemoryFeature.Locking, lockError);
        }

        region = new ProtectedRegion(data, length, protection, mappingBase, mappingLength);
        return true;
    }

    public override void Free(in ProtectedRegion region)
    {
        CryptographicOperations.ZeroMemory(region.Bytes);
        if ((region.Protection & KeyMemoryProtection.Locked) != 0)
        {
            _ = Kernel32.VirtualUnlock(region.Data, (nuint)region.Length);
        }

        _ = Kernel32.VirtualFree(region.MappingBase, 0, Kernel32.MemRelease);
    }
}

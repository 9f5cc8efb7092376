using System.Runtime.InteropServices;
using System.Security.Cryptography;

namespace Encryption.Custom.Native.Memory;

/// <summary>The last resort: page-aligned native heap memory with no protection beyond masking.</summary>
internal sealed unsafe class HeapPageAllocator : PageAllocator
{
    public override bool TryAllocate(int length, ref KeyMemoryFailures failures, out ProtectedRegion region)
    {
        int pageSize = Environment.SystemPageSize;
        byte* data = (byte*)NativeMemory.AlignedAlloc((nuint)length, (nuint)pageSize);
        NativeMemory.Clear(data, (nuint)length);
        region = new ProtectedRegion(data, length, KeyMemoryProtection.None, data, (nuint)length);
        return true;
    }

    public override void Free(in ProtectedRegion region)
    {
        CryptographicOperations.ZeroMemory(region.Bytes);
        NativeMemory.AlignedFree(region.MappingBase);
    }
}

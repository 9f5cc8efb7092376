using Encryption.Custom.Native.Memory;

namespace Encryption.Custom.Tests.Native.Memory;

/// <summary>
/// The platform's allocator, remembering the regions it maps so that tests can read key memory as a dump would
/// (the masked form, and zeros after a release) instead of asking the product for it.
/// </summary>
internal sealed unsafe class RecordingPageAllocator : PageAllocator
{
    private readonly PageAllocator _inner = CreateForCurrentPlatform();
    private readonly List<ProtectedRegion> _mapped = [];

    /// <summary>A pool over a new recording allocator.</summary>
    public static (ProtectedMemoryPool Pool, RecordingPageAllocator Allocator) Pool()
    {
        var allocator = new RecordingPageAllocator();
        return (new ProtectedMemoryPool(allocator), allocator);
    }

    public override bool TryAllocate(int length, ref KeyMemoryFailures failures, out ProtectedRegion region)
    {
        if (!_inner.TryAllocate(length, ref failures, out region))
        {
            return false;
        }

        lock (_mapped)
        {
            _mapped.Add(region);
        }

        return true;
    }

    public override void Free(in ProtectedRegion region)
    {
        byte* data = region.Data;
        lock (_mapped)
        {
            _mapped.RemoveAll(mapped => mapped.Data == data);
        }

        _inner.Free(region);
    }

    /// <summary>A copy of the <paramref name="index"/>th region still mapped (the pool maps its pad first, then slabs).</summary>
    public byte[] CopyRegion(int index)
    {
        lock (_mapped)
        {
            return _mapped[index].Bytes.ToArray();
        }
    }

    /// <summary>A copy of slot <paramref name="slot"/> of the first slab, for slots of <paramref name="slotSize"/> bytes.</summary>
    public byte[] CopySlot(int slot, int slotSize) => CopyRegion(1).AsSpan(slot * slotSize, slotSize).ToArray();
}

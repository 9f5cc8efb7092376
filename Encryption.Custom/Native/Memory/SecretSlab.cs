using System.Diagnostics;

namespace Encryption.Custom.Native.Memory;

/// <summary>
/// One protected region cut into equal slots. Many keys share one mapping and one lock, so thousands of keys fit
/// a small memlock limit. Not thread-safe: <see cref="ProtectedMemoryPool"/> serializes access.
/// </summary>
internal sealed unsafe class SecretSlab
{
    private readonly int[] _freeSlots;
    private int _freeCount;

    public SecretSlab(PageAllocator allocator, in ProtectedRegion region, int slotSize)
    {
        Debug.Assert(region.Length % slotSize == 0, "A region holds whole slots.");
        Allocator = allocator;
        Region = region;
        SlotSize = slotSize;
        SlotCount = region.Length / slotSize;
        _freeSlots = new int[SlotCount];

        // Hand out the lowest slots first (popped from the end).
        for (int i = 0; i < SlotCount; i++)
        {
            _freeSlots[i] = SlotCount - 1 - i;
        }

        _freeCount = SlotCount;
    }

    public PageAllocator Allocator { get; }

    public ProtectedRegion Region { get; }

    public int SlotSize { get; }

    public int SlotCount { get; }

    public int UsedCount => SlotCount - _freeCount;

    public bool HasFreeSlot => _freeCount > 0;

    public int Take()
    {
        Debug.Assert(_freeCount > 0, "Callers check HasFreeSlot.");
        return _freeSlots[--_freeCount];
    }

    public void Return(int index)
    {
        Debug.Assert(_freeCount < SlotCount, "A slot is returned once.");
        _freeSlots[_freeCount++] = index;
    }

    public byte* SlotPointer(int index) => Region.Data + ((nint)index * SlotSize);
}

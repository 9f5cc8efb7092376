using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Numerics;
using System.Security.Cryptography;
using Encryption.Custom.Diagnostics;

namespace Encryption.Custom.Native.Memory;

/// <summary>
/// Hands out slots of protected memory for small secrets. Slots of one size class share slabs (one guarded,
/// locked mapping each), so allocation and release cost no system call once a slab exists, and thousands of keys
/// need only a few locked pages. Every secret is XOR-masked with a random pad held in a separate mapping.
/// Thread-safe.
/// </summary>
internal sealed unsafe partial class ProtectedMemoryPool : IDisposable
{
    /// <summary>The largest secret a slot holds.</summary>
    public const int MaxSecretLength = 256;

    /// <summary>The smallest slot; size classes double from here up to <see cref="MaxSecretLength"/>.</summary>
    public const int MinSlotSize = 64;

    /// <summary>Bytes of random pad; a power of two that every slot size divides.</summary>
    public const int PadLength = 4096;

    // 16 KB holds 128 keys of 128 bytes: a 64 KB container memlock limit still fits a few slabs plus the pad.
    private const int PreferredSlabLength = 16 * 1024;

    private static int s_lastPoolId;

    private readonly Lock _sync = new();
    private readonly PageAllocator _allocator;
    private readonly HeapPageAllocator _fallbackAllocator = new();
    private readonly List<SecretSlab>[] _slabsBySizeClass;
    private readonly ProtectedRegion _pad;
    private readonly PageAllocator _padAllocator;
    private readonly int _slabLength;
    private int _reportedFeatures;
    private int _slotsInUse;
    private bool _disposed;
    private bool _padFreed;

    /// <summary>Creates a pool over the platform's allocator.</summary>
    public ProtectedMemoryPool()
        : this(PageAllocator.CreateForCurrentPlatform())
    {
    }

    /// <summary>Creates a pool over <paramref name="allocator"/> (tests pass one whose platform calls refuse, or that records what it maps).</summary>
    internal ProtectedMemoryPool(PageAllocator allocator)
        : this(Interlocked.Increment(ref s_lastPoolId), allocator)
    {
    }

    private ProtectedMemoryPool(int id, PageAllocator allocator)
    {
        Id = id;
        _allocator = allocator;
        int pageSize = Environment.SystemPageSize;
        _slabLength = Math.Max(PreferredSlabLength, pageSize);
        _slabsBySizeClass = new List<SecretSlab>[BitOperations.Log2(MaxSecretLength / MinSlotSize) + 1];
        for (int i = 0; i < _slabsBySizeClass.Length; i++)
        {
            _slabsBySizeClass[i] = [];
        }

        (_pad, _padAllocator) = MapRegion(Math.Max(PadLength, pageSize));
        RandomNumberGenerator.Fill(_pad.Bytes);
    }

    /// <summary>The process-wide pool every key uses outside tests.</summary>
    public static ProtectedMemoryPool Shared { get; } = new(0, PageAllocator.CreateForCurrentPlatform());

    /// <summary>Identifies the pool in diagnostics events (0 is <see cref="Shared"/>).</summary>
    public int Id { get; }

    /// <summary>What protects the mask pad.</summary>
    public KeyMemoryProtection PadProtection => _pad.Protection;

    /// <summary>Takes a zeroed slot for a secret of <paramref name="length"/> bytes.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="length"/> is not in 1..<see cref="MaxSecretLength"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool was disposed.</exception>
    /// <exception cref="OutOfMemoryException">No memory could be mapped at all (<see cref="InsufficientMemoryException"/> or the heap's own).</exception>
    public SecretSlot Allocate(int length)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(length, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(length, MaxSecretLength);
        int slotSize = Math.Max(MinSlotSize, (int)BitOperations.RoundUpToPowerOf2((uint)length));
        List<SecretSlab> slabs = _slabsBySizeClass[SizeClassIndex(slotSize)];

        lock (_sync)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            SecretSlab? slab = null;
            foreach (SecretSlab candidate in slabs)
            {
                if (candidate.HasFreeSlot)
                {
                    slab = candidate;
                    break;
                }
            }

            if (slab is null)
            {
                slab = CreateSlab(slotSize);
                slabs.Add(slab);
            }

            int index = slab.Take();
            _slotsInUse++;

            // Slot offsets repeat every PadLength bytes of the slab, so each slot's pad window is fixed and in range.
            byte* pad = _pad.Data + ((index * slotSize) & (PadLength - 1));
            return new SecretSlot(slab, index, length, pad);
        }
    }

    /// <summary>Wipes a slot and returns it. The handle (and its copies) must not be used afterwards.</summary>
    public void Free(in SecretSlot slot)
    {
        Debug.Assert(slot.Slab is not null, "A slot from Allocate.");
        slot.Wipe();
        List<SecretSlab> slabs = _slabsBySizeClass[SizeClassIndex(slot.Slab.SlotSize)];

        lock (_sync)
        {
            slot.Slab.Return(slot.Index);
            _slotsInUse--;

            // Keep one slab per size class mapped so that a key churning in and out maps nothing.
            if (slot.Slab.UsedCount == 0 && (slabs.Count > 1 || _disposed))
            {
                slabs.Remove(slot.Slab);
                slot.Slab.Allocator.Free(slot.Slab.Region);
                FreePadIfUnused();
            }
        }
    }

    /// <summary>Unmaps what is unused now, and every other slab (and the pad) as soon as its last slot is freed.</summary>
    public void Dispose()
    {
        lock (_sync)
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
            foreach (List<SecretSlab> slabs in _slabsBySizeClass)
            {
                for (int i = slabs.Count - 1; i >= 0; i--)
                {
                    if (slabs[i].UsedCount == 0)
                    {
                        slabs[i].Allocator.Free(slabs[i].Region);
                        slabs.RemoveAt(i);
                    }
                }
            }

            FreePadIfUnused();
        }
    }

    private static int SizeClassIndex(int slotSize) => BitOperations.Log2((uint)slotSize) - BitOperations.Log2(MinSlotSize);

    private SecretSlab CreateSlab(int slotSize)
    {
        (ProtectedRegion region, PageAllocator allocator) = MapRegion(_slabLength);
        var slab = new SecretSlab(allocator, region, slotSize);
        EncryptionEventSource.Log.KeyMemorySlabMapped(Id, slotSize, slab.SlotCount, ProtectionName(region.Protection));
        return slab;
    }

    // The platform allocator first; the plain heap when it cannot map anything. Refusals are reported once per pool.
    private (ProtectedRegion Region, PageAllocator Allocator) MapRegion(int length)
    {
        KeyMemoryFailures failures = default;
        PageAllocator allocator = _allocator;
        if (!allocator.TryAllocate(length, ref failures, out ProtectedRegion region))
        {
            allocator = _fallbackAllocator;
            if (!allocator.TryAllocate(length, ref failures, out region))
            {
                ThrowOutOfMemory();
            }
        }

        ReportRefusals(failures, region.Protection);
        return (region, allocator);
    }

    private void ReportRefusals(in KeyMemoryFailures failures, KeyMemoryProtection obtained)
    {
        for (int i = 0; i < KeyMemoryFailures.FeatureCount; i++)
        {
            var feature = (KeyMemoryFeature)i;
            int bit = 1 << i;
            if (failures.TryGet(feature, out int errorCode) && (Interlocked.Or(ref _reportedFeatures, bit) & bit) == 0)
            {
                EncryptionEventSource.Log.KeyMemoryProtectionUnavailable(Id, feature.ToString(), errorCode, ProtectionName(obtained));
            }
        }
    }

    private void FreePadIfUnused()
    {
        if (!_disposed || _padFreed)
        {
            return;
        }

        foreach (List<SecretSlab> slabs in _slabsBySizeClass)
        {
            if (slabs.Count > 0)
            {
                return;
            }
        }

        _padFreed = true;
        _padAllocator.Free(_pad);
    }

    private static string ProtectionName(KeyMemoryProtection regionProtection) =>
        (regionProtection | KeyMemoryProtection.Masked).ToString();

    [DoesNotReturn]
    private static void ThrowOutOfMemory() => throw new InsufficientMemoryException("No memory could be mapped for key material.");
}

namespace Encryption.Custom.Native.Memory;

/// <summary>Counters for diagnostics and tests.</summary>
internal sealed partial class ProtectedMemoryPool
{
    /// <summary>Slots currently handed out.</summary>
    public int SlotsInUse
    {
        get
        {
            lock (_sync)
            {
                return _slotsInUse;
            }
        }
    }

    /// <summary>Slabs currently mapped, over all size classes.</summary>
    public int SlabCount
    {
        get
        {
            lock (_sync)
            {
                int count = 0;
                foreach (List<SecretSlab> slabs in _slabsBySizeClass)
                {
                    count += slabs.Count;
                }

                return count;
            }
        }
    }

    /// <summary>Bytes of locked memory the pool holds (slabs and pad): what counts against the memlock limit.</summary>
    public long LockedBytes
    {
        get
        {
            lock (_sync)
            {
                long total = !_padFreed && (_pad.Protection & KeyMemoryProtection.Locked) != 0 ? _pad.Length : 0;
                foreach (List<SecretSlab> slabs in _slabsBySizeClass)
                {
                    foreach (SecretSlab slab in slabs)
                    {
                        if ((slab.Region.Protection & KeyMemoryProtection.Locked) != 0)
                        {
                            total += slab.Region.Length;
                        }
                    }
                }

                return total;
            }
        }
    }
}

using System.Security.Cryptography;
using Encryption.Custom.Native.Memory;

namespace Encryption.Custom.Tests.Native.Memory;

public sealed class ProtectedMemoryPoolTests : IDisposable
{
    private readonly ProtectedMemoryPool _pool = new();

    public void Dispose() => _pool.Dispose();

    [Theory]
    [InlineData(1)]
    [InlineData(31)]
    [InlineData(64)]
    [InlineData(65)]
    [InlineData(128)]
    [InlineData(200)]
    [InlineData(256)]
    public void StoreThenReveal_AnyLength_ReturnsTheSecret(int length)
    {
        byte[] secret = RandomNumberGenerator.GetBytes(length);
        SecretSlot slot = _pool.Allocate(length);
        try
        {
            slot.Store(secret);
            byte[] read = new byte[length];
            slot.Reveal(0, read);

            Assert.Equal(secret, read);
            Assert.NotEqual(secret, TestKeys.StoredBytes(slot));
        }
        finally
        {
            _pool.Free(slot);
        }
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-1)]
    [InlineData(257)]
    public void Allocate_LengthOutsideOneTo256_Throws(int length)
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => _pool.Allocate(length));
    }

    [Theory]
    [InlineData(0, 33)]
    [InlineData(1, 32)]
    [InlineData(32, 1)]
    [InlineData(-1, 2)]
    public void Store_RangeOutsideTheSecret_Throws(int offset, int length)
    {
        SecretSlot slot = _pool.Allocate(32);
        try
        {
            Assert.Throws<ArgumentOutOfRangeException>(() => slot.Store(new byte[length], offset));
            Assert.Throws<ArgumentOutOfRangeException>(() => slot.Reveal(offset, new byte[length]));
        }
        finally
        {
            _pool.Free(slot);
        }
    }

    [Fact]
    public void Free_ThenAllocate_ReusesTheSlotWithoutMappingMore()
    {
        SecretSlot first = _pool.Allocate(128);
        int slabs = _pool.SlabCount;
        _pool.Free(first);

        SecretSlot second = _pool.Allocate(128);

        Assert.Same(first.Slab, second.Slab);
        Assert.Equal(first.Index, second.Index);
        Assert.Equal(slabs, _pool.SlabCount);
        Assert.All(TestKeys.StoredBytes(second), value => Assert.Equal(0, value));
        _pool.Free(second);
    }

    [Fact]
    public void Allocate_ThousandsOfKeys_ShareSlabsWithinASmallMemlockBudget()
    {
        const int Keys = 5_000;
        var keys = new List<(byte[] Bytes, ProtectedKeyMaterial Material)>(Keys);
        try
        {
            for (int i = 0; i < Keys; i++)
            {
                byte[] allKeys = TestKeys.RandomKeyBytes();
                keys.Add((allKeys, TestKeys.Create(allKeys, _pool)));
            }

            int slabLength = Math.Max(16 * 1024, Environment.SystemPageSize);
            int expectedSlabs = (int)Math.Ceiling(Keys * 128.0 / slabLength);
            Assert.Equal(expectedSlabs, _pool.SlabCount);

            // One mapping per key would lock 5,000 pages (20 MB); shared slabs lock ~5,000 × 128 bytes.
            long budget = ((long)expectedSlabs * slabLength) + Math.Max(ProtectedMemoryPool.PadLength, Environment.SystemPageSize);
            Assert.InRange(_pool.LockedBytes, 0, budget);

            Assert.All(keys, key => Assert.Equal(TestKeys.SubKeysOf(key.Bytes), TestKeys.ReadSubKeys(key.Material)));
        }
        finally
        {
            keys.ForEach(key => key.Material.Dispose());
        }

        Assert.Equal(0, _pool.SlotsInUse);
        Assert.Equal(1, _pool.SlabCount);
    }

    [Fact]
    public void Allocate_DifferentSizeClasses_UseDifferentSlabs()
    {
        SecretSlot small = _pool.Allocate(32);
        SecretSlot key = _pool.Allocate(128);
        SecretSlot large = _pool.Allocate(256);

        Assert.Equal(64, small.Slab.SlotSize);
        Assert.Equal(128, key.Slab.SlotSize);
        Assert.Equal(256, large.Slab.SlotSize);
        Assert.Equal(3, _pool.SlabCount);

        _pool.Free(small);
        _pool.Free(key);
        _pool.Free(large);
    }

    [Fact]
    public void Dispose_WithSlotsInUse_KeepsThemUsableAndUnmapsAfterTheLast()
    {
        var pool = new ProtectedMemoryPool();
        byte[] allKeys = TestKeys.RandomKeyBytes();
        ProtectedKeyMaterial material = TestKeys.Create(allKeys, pool);

        pool.Dispose();

        Assert.Throws<ObjectDisposedException>(() => pool.Allocate(16));
        Assert.Equal(TestKeys.SubKeysOf(allKeys), TestKeys.ReadSubKeys(material));
        Assert.Equal(1, pool.SlabCount);

        material.Dispose();

        Assert.Equal(0, pool.SlabCount);
        Assert.Equal(0, pool.LockedBytes);
    }
}

using System.Runtime.CompilerServices;
using Encryption.Custom.Crypto;
using Encryption.Custom.Native.Memory;

namespace Encryption.Custom.Tests.Native.Memory;

/// <summary>
/// The material alone: one owner disposes it (once) or the finalizer does. How long a key stays usable while
/// operations run is the owning key's reference count: see <c>DataEncryptionKeyLeaseTests</c>.
/// </summary>
public sealed class ProtectedKeyMaterialLifetimeTests : IDisposable
{
    private readonly ProtectedMemoryPool _pool = new();

    public void Dispose() => _pool.Dispose();

    [Fact]
    public void UseSubKey_AfterDispose_ThrowsObjectDisposed()
    {
        ProtectedKeyMaterial material = TestKeys.Create(TestKeys.RandomKeyBytes(), _pool);

        material.Dispose();

        Assert.True(material.IsReleased);
        Assert.Throws<ObjectDisposedException>(() => TestKeys.ReadSubKey(material, AeadSubKey.Encryption));
        Assert.Equal(0, _pool.SlotsInUse);
    }

    [Fact]
    public void Dispose_Twice_ReleasesOnce()
    {
        ProtectedKeyMaterial material = TestKeys.Create(TestKeys.RandomKeyBytes(), _pool);
        byte[] neighbourKeys = TestKeys.RandomKeyBytes();
        using ProtectedKeyMaterial neighbour = TestKeys.Create(neighbourKeys, _pool);

        material.Dispose();
        material.Dispose();

        // A second release would wipe and return the slot twice: the count would drop below the neighbour's slot,
        // and the next key could be handed the neighbour's slot.
        Assert.Equal(1, _pool.SlotsInUse);
        using ProtectedKeyMaterial next = TestKeys.Create(TestKeys.RandomKeyBytes(), _pool);
        Assert.Equal(TestKeys.SubKeysOf(neighbourKeys), TestKeys.ReadSubKeys(neighbour));
    }

    [Fact]
    public void UseSubKey_ManyThreadsOnOneKey_EveryReadIsExact()
    {
        byte[] allKeys = TestKeys.RandomKeyBytes();
        using ProtectedKeyMaterial material = TestKeys.Create(allKeys, _pool);
        int mismatches = 0;

        Parallel.For(0, 20_000, new ParallelOptions { MaxDegreeOfParallelism = 8 }, i =>
        {
            var subKey = (AeadSubKey)(i % 3);
            byte[] read = TestKeys.ReadSubKey(material, subKey);
            if (!read.AsSpan().SequenceEqual(allKeys.AsSpan(32 + ((int)subKey * 32), 32)))
            {
                Interlocked.Increment(ref mismatches);
            }
        });

        Assert.Equal(0, mismatches);
    }

    [Fact]
    public void CreateAndDispose_ManyThreadsOnOnePool_EveryKeyReadsBackAndAllSlotsReturn()
    {
        int mismatches = 0;

        Parallel.For(0, 4_000, new ParallelOptions { MaxDegreeOfParallelism = 8 }, _ =>
        {
            byte[] allKeys = TestKeys.RandomKeyBytes();
            using ProtectedKeyMaterial material = TestKeys.Create(allKeys, _pool);
            if (!TestKeys.ReadSubKeys(material).AsSpan().SequenceEqual(TestKeys.SubKeysOf(allKeys)))
            {
                Interlocked.Increment(ref mismatches);
            }
        });

        Assert.Equal(0, mismatches);
        Assert.Equal(0, _pool.SlotsInUse);
    }

    [Fact]
    public void Finalizer_OwnerNeverDisposed_WipesAndReturnsTheSlot()
    {
        var memory = new RecordingPageAllocator();
        using var pool = new ProtectedMemoryPool(memory);
        Assert.True(CreateAndAbandon(pool, memory), "The key was not written to its slot.");

        for (int attempt = 0; attempt < 10 && pool.SlotsInUse != 0; attempt++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }

        Assert.Equal(0, pool.SlotsInUse);
        Assert.All(memory.CopyRegion(1), value => Assert.Equal(0, value));
    }

    // Looks at the slot while the key is still reachable: once this returns, a collection started by any other test
    // thread may finalize it at once, so a check made afterwards could find the slot already wiped.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static bool CreateAndAbandon(ProtectedMemoryPool pool, RecordingPageAllocator memory)
    {
        ProtectedKeyMaterial material = TestKeys.Create(TestKeys.RandomKeyBytes(), pool);
        bool written = memory.CopyRegion(1).Any(value => value != 0);
        GC.KeepAlive(material);
        return written;
    }
}

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
        Assert.Throws<ObjectDisposedException>(() => TestKeys.ReadRootKey(material));
        Assert.Equal(0, _pool.SlotsInUse);
    }

    [Fact]
    public void Dispose_Twice_ReleasesOnce()
    {
        ProtectedKeyMaterial material = TestKeys.Create(TestKeys.RandomKeyBytes(), _pool);
        using ProtectedKeyMaterial neighbour = TestKeys.Create(TestKeys.RandomKeyBytes(), _pool);
        int releases = 0;
        material.ReleasedSlotObserver = _ => releases++;

        material.Dispose();
        material.Dispose();

        Assert.Equal(1, releases);
        Assert.Equal(1, _pool.SlotsInUse);
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
            if (!TestKeys.ReadAll(material).AsSpan().SequenceEqual(allKeys))
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
        int wipedSlots = 0;
        CreateAndAbandon(_pool, () => Interlocked.Increment(ref wipedSlots));

        for (int attempt = 0; attempt < 10 && Volatile.Read(ref wipedSlots) == 0; attempt++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }

        Assert.Equal(1, wipedSlots);
        Assert.Equal(0, _pool.SlotsInUse);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void CreateAndAbandon(ProtectedMemoryPool pool, Action onWiped)
    {
        ProtectedKeyMaterial material = TestKeys.Create(TestKeys.RandomKeyBytes(), pool);
        material.ReleasedSlotObserver = stored =>
        {
            if (!stored.ContainsAnyExcept((byte)0))
            {
                onWiped();
            }
        };
    }
}

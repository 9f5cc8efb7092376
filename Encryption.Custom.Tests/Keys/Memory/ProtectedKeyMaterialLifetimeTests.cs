using System.Runtime.CompilerServices;
using Encryption.Custom.Crypto;
using Encryption.Custom.Keys.Memory;

namespace Encryption.Custom.Tests.Keys.Memory;

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
        Assert.Throws<ObjectDisposedException>(() => material.Pin());
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
    public void Pin_OwnerDisposesMeanwhile_KeyStaysUsableUntilThePinEnds()
    {
        byte[] allKeys = TestKeys.RandomKeyBytes();
        ProtectedKeyMaterial material = TestKeys.Create(allKeys, _pool);
        bool released = false;
        material.ReleasedSlotObserver = _ => released = true;

        ProtectedKeyMaterialPin pin = material.Pin();
        material.Dispose();

        Assert.False(released);
        Assert.Equal(allKeys, TestKeys.ReadAll(material));

        // Once the owner has disposed, running operations finish but no new one starts.
        Assert.Throws<ObjectDisposedException>(() => material.Pin());

        pin.Dispose();

        Assert.True(released);
        Assert.Throws<ObjectDisposedException>(() => TestKeys.ReadAll(material));
    }

    [Fact]
    public void Pin_SeveralPins_ReleasedAfterTheLast()
    {
        ProtectedKeyMaterial material = TestKeys.Create(TestKeys.RandomKeyBytes(), _pool);
        ProtectedKeyMaterialPin first = material.Pin();
        ProtectedKeyMaterialPin second = material.Pin();

        material.Dispose();
        first.Dispose();
        Assert.False(material.IsReleased);

        second.Dispose();
        Assert.True(material.IsReleased);
        Assert.Equal(0, _pool.SlotsInUse);
    }

    [Fact]
    public void Pin_DisposedWhileOwnerStillHoldsIt_KeyStaysUsable()
    {
        byte[] allKeys = TestKeys.RandomKeyBytes();
        using ProtectedKeyMaterial material = TestKeys.Create(allKeys, _pool);

        using (material.Pin())
        {
            Assert.Equal(allKeys, TestKeys.ReadAll(material));
        }

        Assert.False(material.IsReleased);
        Assert.Equal(allKeys, TestKeys.ReadAll(material));
    }

    [Fact]
    public void DefaultPin_Dispose_DoesNothing()
    {
        ProtectedKeyMaterialPin pin = default;

        pin.Dispose();

        Assert.Null(pin.Material);
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
    public async Task Dispose_WhileOtherThreadsUseTheKey_ReadsAreExactUntilTheyFailWithObjectDisposed()
    {
        byte[] allKeys = TestKeys.RandomKeyBytes();
        for (int round = 0; round < 20; round++)
        {
            ProtectedKeyMaterial material = TestKeys.Create(allKeys, _pool);
            int mismatches = 0;
            int successes = 0;
            using var started = new CountdownEvent(4);

            Task[] readers = Enumerable.Range(0, 4).Select(_ => Task.Run(() =>
            {
                started.Signal();
                while (true)
                {
                    try
                    {
                        using ProtectedKeyMaterialPin pin = material.Pin();
                        if (!TestKeys.ReadAll(material).AsSpan().SequenceEqual(allKeys))
                        {
                            Interlocked.Increment(ref mismatches);
                        }

                        Interlocked.Increment(ref successes);
                    }
                    catch (ObjectDisposedException)
                    {
                        return;
                    }
                }
            })).ToArray();

            started.Wait(TestContext.Current.CancellationToken);
            SpinWait.SpinUntil(() => Volatile.Read(ref successes) > 0);
            material.Dispose();
            await Task.WhenAll(readers);

            Assert.Equal(0, mismatches);
            Assert.True(material.IsReleased);
        }

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

    [Fact]
    public void Finalizer_PinLeakedAfterOwnerDisposed_StillWipesAndReturnsTheSlot()
    {
        int wipedSlots = 0;
        CreatePinAndAbandon(_pool, () => Interlocked.Increment(ref wipedSlots));

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

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void CreatePinAndAbandon(ProtectedMemoryPool pool, Action onWiped)
    {
        ProtectedKeyMaterial material = TestKeys.Create(TestKeys.RandomKeyBytes(), pool);
        material.ReleasedSlotObserver = stored =>
        {
            if (!stored.ContainsAnyExcept((byte)0))
            {
                onWiped();
            }
        };
        _ = material.Pin();
        material.Dispose();
    }
}

using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using Encryption.Custom.Keys;
using Encryption.Custom.Native.Memory;
using Encryption.Custom.Tests.Keys.TestSupport;

namespace Encryption.Custom.Tests.Keys;

/// <summary>
/// The one lifetime mechanism: the key's reference count (owner plus one per <see cref="DataEncryptionKeyLease"/>).
/// The owner's dispose marks the key; its memory is wiped when the last reference goes; no reference starts after.
/// </summary>
public sealed class DataEncryptionKeyLeaseTests : IDisposable
{
    private const string Current = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

    private readonly ProtectedMemoryPool _pool = new();

    public void Dispose() => _pool.Dispose();

    [Fact]
    public void Lease_OwnerDisposesMeanwhile_KeyWorksThroughTheLeaseUntilItEnds()
    {
        DataEncryptionKey key = CreateKey();
        byte[] cell = key.EncryptData([7, 8, 9]);
        DataEncryptionKeyLease lease = DataEncryptionKeyLease.Acquire(key);

        key.Dispose();

        Assert.Equal([7, 8, 9], lease.Key.DecryptLeased(cell));
        Assert.False(key.IsReleased);
        Assert.Equal(1, _pool.SlotsInUse);

        lease.Dispose();

        Assert.True(key.IsReleased);
        Assert.Equal(0, _pool.SlotsInUse);
        Assert.Throws<ObjectDisposedException>(() => key.DecryptData(cell));
    }

    [Fact]
    public void TryAcquire_AfterTheOwnerDisposed_FailsEvenWhileALeaseRemains()
    {
        DataEncryptionKey key = CreateKey();
        using DataEncryptionKeyLease held = DataEncryptionKeyLease.Acquire(key);

        key.Dispose();

        // Overlapping users must not keep an evicted key alive forever: the count can only drain.
        Assert.False(DataEncryptionKeyLease.TryAcquire(key, out DataEncryptionKeyLease refused));
        Assert.Null(refused.Key);
        Assert.Throws<ObjectDisposedException>(() => DataEncryptionKeyLease.Acquire(key));
        Assert.Throws<ObjectDisposedException>(() => key.EncryptData([1]));
    }

    [Fact]
    public void Lease_Several_KeyReleasedAfterTheLast()
    {
        DataEncryptionKey key = CreateKey();
        DataEncryptionKeyLease first = DataEncryptionKeyLease.Acquire(key);
        DataEncryptionKeyLease second = DataEncryptionKeyLease.Acquire(key);

        key.Dispose();
        first.Dispose();
        Assert.False(key.IsReleased);

        second.Dispose();
        Assert.True(key.IsReleased);
        Assert.Equal(0, _pool.SlotsInUse);
    }

    [Fact]
    public void Lease_EndsWhileTheOwnerStillHoldsTheKey_KeyStaysUsable()
    {
        using DataEncryptionKey key = CreateKey();

        using (DataEncryptionKeyLease.Acquire(key))
        {
            Assert.Equal([1], key.DecryptData(key.EncryptData([1])));
        }

        Assert.False(key.IsReleased);
        Assert.Equal([2], key.DecryptData(key.EncryptData([2])));
    }

    [Fact]
    public void DefaultLease_Dispose_DoesNothing()
    {
        DataEncryptionKeyLease lease = default;

        lease.Dispose();

        Assert.Null(lease.Key);
    }

    [Fact]
    public void Lease_KeyNotTheLibrarys_ItsDisposeWaitsForTheLastLease()
    {
        // The count lives in the base class: any key, the library's or an application's, gets the same lifetime.
        var key = new TestDataEncryptionKey(RandomNumberGenerator.GetBytes(32), Current);
        DataEncryptionKeyLease lease = DataEncryptionKeyLease.Acquire(key);

        key.Dispose();
        Assert.False(key.IsDisposed);

        lease.Dispose();
        Assert.True(key.IsDisposed);
    }

    [Fact]
    public async Task Dispose_WhileThreadsLeaseAndUseTheKey_EveryUseIsExactAndTheMemoryIsWipedOnce()
    {
        byte[] plainText = RandomNumberGenerator.GetBytes(300);
        for (int round = 0; round < 20; round++)
        {
            DataEncryptionKey key = CreateKey();
            byte[] cell = key.EncryptData(plainText);
            int mismatches = 0;
            int successes = 0;
            using var started = new CountdownEvent(4);

            Task[] users = [.. Enumerable.Range(0, 4).Select(_ => Task.Run(() =>
            {
                started.Signal();
                while (DataEncryptionKeyLease.TryAcquire(key, out DataEncryptionKeyLease lease))
                {
                    using (lease)
                    {
                        if (!lease.Key.DecryptLeased(cell).AsSpan().SequenceEqual(plainText))
                        {
                            Interlocked.Increment(ref mismatches);
                        }

                        Interlocked.Increment(ref successes);
                    }
                }
            }))];

            started.Wait(TestContext.Current.CancellationToken);
            SpinWait.SpinUntil(() => Volatile.Read(ref successes) > 0);
            key.Dispose();
            await Task.WhenAll(users);

            Assert.Equal(0, mismatches);
            Assert.True(key.IsReleased);
        }

        Assert.Equal(0, _pool.SlotsInUse);
    }

    [Fact]
    public void Finalizer_LeaseLeakedAfterTheOwnerDisposed_StillWipesAndReturnsTheMemory()
    {
        LeaseDisposeAndAbandon(_pool);

        for (int attempt = 0; attempt < 10 && _pool.SlotsInUse != 0; attempt++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }

        Assert.Equal(0, _pool.SlotsInUse);
    }

    [Fact]
    public unsafe void DecryptData_ByteArray_LeavesNoPlainTextInTheLongerWorkBuffer()
    {
        using DataEncryptionKey inner = CreateKey();
        var key = new BufferWatchingKey(inner);

        // No garbage collection while the work buffer's address is kept: it cannot move or be reused.
        Assert.True(GC.TryStartNoGCRegion(16 * 1024 * 1024));
        try
        {
            byte[] plainText = key.DecryptData(inner.EncryptData("secret value"u8.ToArray()));

            Assert.Equal("secret value"u8.ToArray(), plainText);
            Assert.True(key.LastDestinationLength > plainText.Length);
            var workBuffer = new ReadOnlySpan<byte>((void*)key.LastDestination, key.LastDestinationLength);
            Assert.False(workBuffer.ContainsAnyExcept((byte)0), "the work buffer still holds plaintext");
        }
        finally
        {
            GC.EndNoGCRegion();
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void LeaseDisposeAndAbandon(ProtectedMemoryPool pool)
    {
        DataEncryptionKey key = ProtectedDataEncryptionKey.CreateProtected(RandomNumberGenerator.GetBytes(32), Current, pool);
        _ = DataEncryptionKeyLease.Acquire(key);
        key.Dispose();
    }

    private ProtectedDataEncryptionKey CreateKey() => ProtectedDataEncryptionKey.CreateProtected(RandomNumberGenerator.GetBytes(32), Current, _pool);

    /// <summary>An application's key that delegates to a library key and remembers where it was asked to write plaintext.</summary>
    private sealed unsafe class BufferWatchingKey(DataEncryptionKey inner) : DataEncryptionKey
    {
        public nint LastDestination { get; private set; }

        public int LastDestinationLength { get; private set; }

        public override string EncryptionAlgorithm => inner.EncryptionAlgorithm;

        public override int GetEncryptByteCount(int plainTextLength) => inner.GetEncryptByteCount(plainTextLength);

        public override int GetDecryptByteCount(int cipherTextLength) => inner.GetDecryptByteCount(cipherTextLength);

        public override int EncryptData(ReadOnlySpan<byte> plainText, Span<byte> destination) => inner.EncryptData(plainText, destination);

        public override int DecryptData(ReadOnlySpan<byte> cipherText, Span<byte> destination)
        {
            fixed (byte* pointer = destination)
            {
                LastDestination = (nint)pointer;
            }

            LastDestinationLength = destination.Length;
            return inner.DecryptData(cipherText, destination);
        }
    }
}

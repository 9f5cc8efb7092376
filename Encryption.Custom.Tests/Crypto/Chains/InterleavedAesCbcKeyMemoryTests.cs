using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using Encryption.Custom.Crypto.Chains;
using Encryption.Custom.Native.Memory;
using Encryption.Custom.Tests.Native.Memory;

namespace Encryption.Custom.Tests.Crypto.Chains;

/// <summary>
/// The multi-chain encryptor's round keys under the key-memory rules (docs/key-memory.md): masked in a protected slot,
/// never in the clear in the slab, zeros after release (by Dispose or by the finalizer), no key bytes in any text.
/// </summary>
public sealed class InterleavedAesCbcKeyMemoryTests
{
    [Fact]
    public void StoredForm_RandomKey_NoRoundKeyBytesInTheSlab()
    {
        InterleavedAesCbcEncryptorTests.SkipUnlessSupported();
        (ProtectedMemoryPool pool, RecordingPageAllocator memory) = RecordingPageAllocator.Pool();
        using (pool)
        {
            byte[] key = RandomNumberGenerator.GetBytes(32);
            byte[] schedule = new byte[Aes256KeySchedule.Length];
            Aes256KeySchedule.Expand(key, schedule);
            using InterleavedAesCbcEncryptor encryptor = InterleavedAesCbcEncryptor.Create(key, pool);

            // The slab as a dump would show it: no 8-byte run of any round key (the first two are the key) anywhere.
            byte[] slab = memory.CopyRegion(1);
            for (int i = 0; i + 8 <= schedule.Length; i += 8)
            {
                Assert.Equal(-1, slab.AsSpan().IndexOf(schedule.AsSpan(i, 8)));
            }

            Assert.Contains(slab, b => b != 0);
            Assert.True(encryptor.Protection.HasFlag(KeyMemoryProtection.Masked));
            SecretSlot probe = pool.Allocate(1);
            try
            {
                Assert.Equal(probe.Protection, encryptor.Protection);
            }
            finally
            {
                pool.Free(probe);
            }
        }
    }

    [Fact]
    public void Dispose_TheSlabHoldsOnlyZerosAndLaterBatchesThrow()
    {
        InterleavedAesCbcEncryptorTests.SkipUnlessSupported();
        (ProtectedMemoryPool pool, RecordingPageAllocator memory) = RecordingPageAllocator.Pool();
        using (pool)
        {
            InterleavedAesCbcEncryptor encryptor = InterleavedAesCbcEncryptor.Create(RandomNumberGenerator.GetBytes(32), pool);
            encryptor.Encrypt(new byte[4], new byte[32], [new CbcChain(0, 4, 0, 16)]);

            encryptor.Dispose();
            encryptor.Dispose();

            Assert.True(encryptor.IsReleased);
            Assert.Equal(0, pool.SlotsInUse);
            Assert.All(memory.CopyRegion(1), b => Assert.Equal(0, b));
            Assert.Throws<ObjectDisposedException>(() => encryptor.Encrypt(new byte[4], new byte[32], [new CbcChain(0, 4, 0, 16)]));
        }
    }

    [Fact]
    public void Finalizer_OwnerNeverDisposed_WipesAndReturnsTheSlot()
    {
        InterleavedAesCbcEncryptorTests.SkipUnlessSupported();
        (ProtectedMemoryPool pool, RecordingPageAllocator memory) = RecordingPageAllocator.Pool();
        using (pool)
        {
            CreateAndDrop(pool);
            Assert.Equal(1, pool.SlotsInUse);

            GC.Collect();
            GC.WaitForPendingFinalizers();

            Assert.Equal(0, pool.SlotsInUse);
            Assert.All(memory.CopyRegion(1), b => Assert.Equal(0, b));
        }
    }

    [Fact]
    public void ToString_ShowsNoKeyBytes()
    {
        InterleavedAesCbcEncryptorTests.SkipUnlessSupported();
        using var pool = new ProtectedMemoryPool();
        byte[] key = RandomNumberGenerator.GetBytes(32);
        byte[] schedule = new byte[Aes256KeySchedule.Length];
        Aes256KeySchedule.Expand(key, schedule);
        InterleavedAesCbcEncryptor encryptor = InterleavedAesCbcEncryptor.Create(key, pool);
        string live = encryptor.ToString();
        encryptor.Dispose();
        string released = encryptor.ToString();

        Assert.Contains("protection", live, StringComparison.Ordinal);
        Assert.Contains("released", released, StringComparison.Ordinal);
        foreach (string text in new[] { live, released })
        {
            for (int i = 0; i + 4 <= schedule.Length; i += 4)
            {
                Assert.DoesNotContain(Convert.ToHexString(schedule, i, 4), text, StringComparison.OrdinalIgnoreCase);
            }
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void CreateAndDrop(ProtectedMemoryPool pool) =>
        InterleavedAesCbcEncryptor.Create(RandomNumberGenerator.GetBytes(32), pool);
}

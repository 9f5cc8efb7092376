using Encryption.Custom.Crypto;
using Encryption.Custom.Native.Memory;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Native.Memory;

public sealed class ProtectedKeyMaterialTests : IDisposable
{
    private readonly ProtectedMemoryPool _pool = new();

    public void Dispose() => _pool.Dispose();

    [Fact]
    public void UseSubKey_AnyKeyBytes_ReturnsExactlyTheBytesGivenToCreate()
    {
        Gen<byte[]> keyBytes = Gen.Choose(0, 255).Select(value => (byte)value).ArrayOf(TestKeys.AllKeysLength);

        Prop.ForAll(Arb.From(keyBytes), allKeys =>
        {
            using ProtectedKeyMaterial material = TestKeys.Create(allKeys, _pool);

            return TestKeys.ReadSubKey(material, AeadSubKey.Encryption).AsSpan().SequenceEqual(allKeys.AsSpan(32, 32))
                && TestKeys.ReadSubKey(material, AeadSubKey.Mac).AsSpan().SequenceEqual(allKeys.AsSpan(64, 32))
                && TestKeys.ReadSubKey(material, AeadSubKey.Iv).AsSpan().SequenceEqual(allKeys.AsSpan(96, 32));
        }).QuickCheckThrowOnFailure();
    }

    [Fact]
    public void Create_ValidSpans_ZeroesBothInputs()
    {
        byte[] root = TestKeys.RandomKeyBytes()[..32];
        byte[] subKeys = TestKeys.RandomKeyBytes()[..96];

        using ProtectedKeyMaterial material = ProtectedKeyMaterial.Create(root, subKeys, _pool);

        Assert.All(root, value => Assert.Equal(0, value));
        Assert.All(subKeys, value => Assert.Equal(0, value));
    }

    [Theory]
    [InlineData(31, 96)]
    [InlineData(33, 96)]
    [InlineData(32, 95)]
    [InlineData(32, 128)]
    [InlineData(0, 0)]
    public void Create_WrongLength_ThrowsAndStillZeroesInputs(int rootLength, int subKeysLength)
    {
        byte[] root = new byte[rootLength];
        byte[] subKeys = new byte[subKeysLength];
        Array.Fill(root, (byte)0xA5);
        Array.Fill(subKeys, (byte)0x5A);
        int slotsBefore = _pool.SlotsInUse;

        Assert.Throws<ArgumentException>(() => ProtectedKeyMaterial.Create(root, subKeys, _pool));

        Assert.All(root, value => Assert.Equal(0, value));
        Assert.All(subKeys, value => Assert.Equal(0, value));
        Assert.Equal(slotsBefore, _pool.SlotsInUse);
    }

    [Fact]
    public void StoredForm_RandomKey_NoKeyBytesInTheSlab()
    {
        (ProtectedMemoryPool pool, RecordingPageAllocator memory) = RecordingPageAllocator.Pool();
        using (pool)
        {
            byte[] allKeys = TestKeys.RandomKeyBytes();
            using ProtectedKeyMaterial material = TestKeys.Create(allKeys, pool);

            // The slab as a dump would show it: no 8-byte run of any key appears anywhere in it.
            byte[] slab = memory.CopyRegion(1);
            for (int i = 0; i + 8 <= allKeys.Length; i += 8)
            {
                Assert.Equal(-1, slab.AsSpan().IndexOf(allKeys.AsSpan(i, 8)));
            }

            // Masking is byte-wise: a random 128-byte pad leaves almost no byte unchanged.
            byte[] stored = memory.CopySlot(0, TestKeys.AllKeysLength);
            int unchanged = Enumerable.Range(0, stored.Length).Count(i => stored[i] == allKeys[i]);
            Assert.True(unchanged < 16, $"{unchanged} of 128 stored bytes equal the key bytes.");
        }
    }

    [Fact]
    public void StoredForm_AllZeroKey_IsNotZero()
    {
        (ProtectedMemoryPool pool, RecordingPageAllocator memory) = RecordingPageAllocator.Pool();
        using (pool)
        {
            using ProtectedKeyMaterial material = TestKeys.Create(new byte[TestKeys.AllKeysLength], pool);

            Assert.Contains(memory.CopySlot(0, TestKeys.AllKeysLength), value => value != 0);
            Assert.Equal(new byte[ProtectedKeyMaterial.SubKeysLength], TestKeys.ReadSubKeys(material));
        }
    }

    [Fact]
    public void StoredForm_SameKeyInTwoSlots_StoredDifferently()
    {
        (ProtectedMemoryPool pool, RecordingPageAllocator memory) = RecordingPageAllocator.Pool();
        using (pool)
        {
            byte[] allKeys = TestKeys.RandomKeyBytes();
            using ProtectedKeyMaterial first = TestKeys.Create(allKeys, pool);
            using ProtectedKeyMaterial second = TestKeys.Create(allKeys, pool);

            Assert.NotEqual(memory.CopySlot(0, TestKeys.AllKeysLength), memory.CopySlot(1, TestKeys.AllKeysLength));
        }
    }

    [Fact]
    public void Dispose_LastReference_TheSlabHoldsOnlyZerosAfterRelease()
    {
        (ProtectedMemoryPool pool, RecordingPageAllocator memory) = RecordingPageAllocator.Pool();
        using (pool)
        {
            ProtectedKeyMaterial material = TestKeys.Create(TestKeys.RandomKeyBytes(), pool);
            Assert.Contains(memory.CopyRegion(1), value => value != 0);

            material.Dispose();

            // The pool keeps this slab mapped (one per size class), so its memory is still there to read.
            Assert.Equal(0, pool.SlotsInUse);
            Assert.All(memory.CopyRegion(1), value => Assert.Equal(0, value));
        }
    }

    [Fact]
    public void UseSubKey_RefStructState_CopiesIntoTheCallersSpan()
    {
        byte[] allKeys = TestKeys.RandomKeyBytes();
        using ProtectedKeyMaterial material = TestKeys.Create(allKeys, _pool);
        Span<byte> destination = stackalloc byte[32];

        material.UseSubKey(AeadSubKey.Mac, static (scoped ReadOnlySpan<byte> key, ref Span<byte> target) => key.CopyTo(target), ref destination);

        Assert.True(destination.SequenceEqual(allKeys.AsSpan(64, 32)));
    }

    [Theory]
    [InlineData(6)]
    [InlineData(-1)]
    public void UseSubKey_UnknownSubKey_Throws(int subKey)
    {
        using ProtectedKeyMaterial material = TestKeys.Create(TestKeys.RandomKeyBytes(), _pool);
        int state = 0;

        Assert.Throws<ArgumentOutOfRangeException>(() =>
            material.UseSubKey((AeadSubKey)subKey, static (ReadOnlySpan<byte> _, ref int _) => { }, ref state));
    }

    [Theory]
    [InlineData((int)AeadSubKey.BoundMac)]
    [InlineData((int)AeadSubKey.Commitment)]
    [InlineData((int)AeadSubKey.QueryToken)]
    public void UseSubKey_ExtendedSubKey_IsDerivedFromTheStoredRootKey(int subKey)
    {
        byte[] allKeys = TestKeys.RandomKeyBytes();
        byte[] expected = new byte[32];
        AeadKeyDerivation.DeriveExtendedSubKey(allKeys.AsSpan(0, 32), (AeadSubKey)subKey, expected);
        using ProtectedKeyMaterial material = TestKeys.Create(allKeys, _pool);

        Assert.Equal(expected, TestKeys.ReadSubKey(material, (AeadSubKey)subKey));
    }

    [Fact]
    public void UseSubKey_ThroughTheAeadKeySourceBase_ReturnsTheSubKey()
    {
        byte[] allKeys = TestKeys.RandomKeyBytes();
        using ProtectedKeyMaterial material = TestKeys.Create(allKeys, _pool);
        AeadKeySource source = material;
        byte[] copy = [];

        source.UseSubKey(AeadSubKey.Iv, static (ReadOnlySpan<byte> key, ref byte[] target) => target = key.ToArray(), ref copy);

        Assert.Equal(allKeys[96..], copy);
    }

    [Fact]
    public void ToString_LiveAndReleased_ShowsProtectionAndNoKeyBytes()
    {
        byte[] allKeys = TestKeys.RandomKeyBytes();
        ProtectedKeyMaterial material = TestKeys.Create(allKeys, _pool);

        string live = material.ToString();
        material.Dispose();
        string released = material.ToString();

        Assert.Contains("Masked", live, StringComparison.Ordinal);
        Assert.Contains("released", released, StringComparison.Ordinal);
        foreach (string text in new[] { live, released })
        {
            Assert.DoesNotContain(Convert.ToHexString(allKeys, 0, 4), text, StringComparison.OrdinalIgnoreCase);
            Assert.DoesNotContain(Convert.ToBase64String(allKeys, 0, 6), text, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void DebuggerDisplay_IsTheProtectionSummary()
    {
        var attribute = (System.Diagnostics.DebuggerDisplayAttribute?)Attribute.GetCustomAttribute(
            typeof(ProtectedKeyMaterial), typeof(System.Diagnostics.DebuggerDisplayAttribute));

        Assert.NotNull(attribute);
        Assert.Equal("{ToString(),nq}", attribute.Value);
    }

    [Fact]
    public void Protection_AnyPool_IncludesMasked()
    {
        using ProtectedKeyMaterial material = TestKeys.Create(TestKeys.RandomKeyBytes(), _pool);

        Assert.True(material.Protection.HasFlag(KeyMemoryProtection.Masked));
    }
}

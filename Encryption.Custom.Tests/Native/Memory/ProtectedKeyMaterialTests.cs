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

            return TestKeys.ReadRootKey(material).AsSpan().SequenceEqual(allKeys.AsSpan(0, 32))
                && TestKeys.ReadSubKey(material, AeadSubKey.Encryption).AsSpan().SequenceEqual(allKeys.AsSpan(32, 32))
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
    public void CopyStoredForm_RandomKey_DiffersFromTheKeyBytes()
    {
        byte[] allKeys = TestKeys.RandomKeyBytes();
        using ProtectedKeyMaterial material = TestKeys.Create(allKeys, _pool);
        byte[] stored = new byte[TestKeys.AllKeysLength];

        material.CopyStoredForm(stored);

        Assert.NotEqual(allKeys, stored);

        // Masking is byte-wise: a random 128-byte pad leaves almost no byte unchanged.
        int unchanged = Enumerable.Range(0, stored.Length).Count(i => stored[i] == allKeys[i]);
        Assert.True(unchanged < 16, $"{unchanged} of 128 stored bytes equal the key bytes.");
    }

    [Fact]
    public void CopyStoredForm_AllZeroKey_IsNotZero()
    {
        using ProtectedKeyMaterial material = TestKeys.Create(new byte[TestKeys.AllKeysLength], _pool);
        byte[] stored = new byte[TestKeys.AllKeysLength];

        material.CopyStoredForm(stored);

        Assert.Contains(stored, value => value != 0);
        Assert.Equal(new byte[TestKeys.AllKeysLength], TestKeys.ReadAll(material));
    }

    [Fact]
    public void CopyStoredForm_SameKeyInTwoSlots_StoredDifferently()
    {
        byte[] allKeys = TestKeys.RandomKeyBytes();
        using ProtectedKeyMaterial first = TestKeys.Create(allKeys, _pool);
        using ProtectedKeyMaterial second = TestKeys.Create(allKeys, _pool);
        byte[] firstStored = new byte[TestKeys.AllKeysLength];
        byte[] secondStored = new byte[TestKeys.AllKeysLength];

        first.CopyStoredForm(firstStored);
        second.CopyStoredForm(secondStored);

        Assert.NotEqual(firstStored, secondStored);
    }

    [Fact]
    public void Dispose_LastReference_SlotIsZeroRightAfterRelease()
    {
        using ProtectedKeyMaterial material = TestKeys.Create(TestKeys.RandomKeyBytes(), _pool);
        var observed = new List<byte[]>();
        material.ReleasedSlotObserver = stored => observed.Add(stored.ToArray());

        material.Dispose();

        byte[] slot = Assert.Single(observed);
        Assert.Equal(TestKeys.AllKeysLength, slot.Length);
        Assert.All(slot, value => Assert.Equal(0, value));
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

    [Fact]
    public void UseSubKey_UnknownSubKey_Throws()
    {
        using ProtectedKeyMaterial material = TestKeys.Create(TestKeys.RandomKeyBytes(), _pool);
        int state = 0;

        Assert.Throws<ArgumentOutOfRangeException>(() =>
            material.UseSubKey((AeadSubKey)3, static (ReadOnlySpan<byte> _, ref int _) => { }, ref state));
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

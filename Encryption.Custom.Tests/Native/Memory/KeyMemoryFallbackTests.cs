using Encryption.Custom.Native.Memory;

namespace Encryption.Custom.Tests.Native.Memory;

/// <summary>Every platform refusal still yields working keys, loses only what was refused, and is reported once.</summary>
public sealed class KeyMemoryFallbackTests
{
    // Enough keys for three slabs of 128-byte slots, so that "reported once" covers several mappings.
    private const int KeysForThreeSlabs = 300;

    // Enum names, because the enums are internal and test methods are public.
    [Theory]
    [InlineData("SecretMemoryUnavailable", "SecretMemory", "SecretMemory")]
    [InlineData("LockRefused", "Locked, SecretMemory", "Locking", "SecretMemory")]
    [InlineData("DumpExclusionRefused", "ExcludedFromDumps", "DumpExclusion")]
    [InlineData("ForkProtectionRefused", "WipedOnFork", "ForkProtection")]
    public void Refusal_OnLinux_KeysWorkWithoutThatProtectionAndItIsReportedOnce(
        string faultName, string lostProtections, params string[] reportedFeatures)
    {
        if (!OperatingSystem.IsLinux())
        {
            Assert.Skip("The simulated refusals drive the Linux allocator.");
            return; // for the platform analyzer, which does not know that Skip throws
        }

        var simulated = Enum.Parse<SimulatedRefusals>(faultName);
        var lost = Enum.Parse<KeyMemoryProtection>(lostProtections);
        using var listener = new KeyMemoryEventListener();
        using ProtectedMemoryPool pool = RefusingLinuxMemoryCalls.Pool(simulated);

        KeyMemoryProtection protection = CreateUseAndDisposeKeys(pool);

        Assert.Equal(KeyMemoryProtection.None, protection & lost);
        Assert.True(protection.HasFlag(KeyMemoryProtection.Masked | KeyMemoryProtection.GuardPages));
        var refusals = listener.RefusalsOf(pool.Id);
        foreach (string feature in reportedFeatures)
        {
            var refusal = Assert.Single(refusals, r => r.Feature == feature);
            Assert.NotEqual(0, refusal.ErrorCode);

            // The event describes the region where the refusal first happened (under a tight memlock limit,
            // earlier regions may be locked and later ones not), so compare only what was lost.
            Assert.Equal(KeyMemoryProtection.None, Enum.Parse<KeyMemoryProtection>(refusal.Protection) & lost);
        }

        Assert.Equal(refusals.Count, refusals.Select(r => r.Feature).Distinct().Count());
    }

    [Fact]
    public void MappingUnavailable_AnyPlatform_KeysWorkOnThePlainHeapAndItIsReportedOnce()
    {
        using var listener = new KeyMemoryEventListener();
        using ProtectedMemoryPool pool = OperatingSystem.IsLinux()
            ? RefusingLinuxMemoryCalls.Pool(SimulatedRefusals.MappingUnavailable)
            : new ProtectedMemoryPool(new NoMappingAllocator());

        KeyMemoryProtection protection = CreateUseAndDisposeKeys(pool);

        Assert.Equal(KeyMemoryProtection.Masked, protection);
        Assert.Equal(KeyMemoryProtection.None, pool.PadProtection);
        var refusal = Assert.Single(listener.RefusalsOf(pool.Id));
        Assert.Equal("GuardedMapping", refusal.Feature);
        Assert.Equal("Masked", refusal.Protection);
    }

    [Fact]
    public void EveryRefusalAtOnce_OnLinux_KeysStillWork()
    {
        if (!OperatingSystem.IsLinux())
        {
            Assert.Skip("The simulated refusals drive the Linux allocator.");
            return; // for the platform analyzer, which does not know that Skip throws
        }

        using var listener = new KeyMemoryEventListener();
        using ProtectedMemoryPool pool = RefusingLinuxMemoryCalls.Pool(
            SimulatedRefusals.SecretMemoryUnavailable | SimulatedRefusals.LockRefused
            | SimulatedRefusals.DumpExclusionRefused | SimulatedRefusals.ForkProtectionRefused);

        KeyMemoryProtection protection = CreateUseAndDisposeKeys(pool);

        Assert.Equal(KeyMemoryProtection.Masked | KeyMemoryProtection.GuardPages, protection);
        Assert.Equal(
            ["DumpExclusion", "ForkProtection", "Locking", "SecretMemory"],
            listener.RefusalsOf(pool.Id).Select(r => r.Feature).Order(StringComparer.Ordinal));
        Assert.Equal(0, pool.LockedBytes);
    }

    [Fact]
    public void NoSimulatedRefusal_OnLinux_EveryMissingProtectionIsReported()
    {
        if (!OperatingSystem.IsLinux())
        {
            Assert.Skip("Linux offers every protection; other platforms lack some by design.");
        }

        using var listener = new KeyMemoryEventListener();
        using var pool = new ProtectedMemoryPool();

        KeyMemoryProtection protection = CreateUseAndDisposeKeys(pool);

        // Whatever this machine's kernel and limits refuse must show up as an event: no silent downgrade.
        var reported = listener.RefusalsOf(pool.Id).Select(r => r.Feature).ToHashSet();
        Assert.Equal(!protection.HasFlag(KeyMemoryProtection.SecretMemory), reported.Contains("SecretMemory"));
        Assert.Equal(!protection.HasFlag(KeyMemoryProtection.Locked), reported.Contains("Locking"));
        Assert.Equal(!protection.HasFlag(KeyMemoryProtection.ExcludedFromDumps), reported.Contains("DumpExclusion"));
        Assert.Equal(!protection.HasFlag(KeyMemoryProtection.WipedOnFork), reported.Contains("ForkProtection"));
        Assert.True(protection.HasFlag(KeyMemoryProtection.GuardPages));
    }

    [Fact]
    public void SlabMapped_Event_NamesSlotSizeCountAndProtectionOnly()
    {
        using var listener = new KeyMemoryEventListener();
        using var pool = new ProtectedMemoryPool();
        byte[] allKeys = TestKeys.RandomKeyBytes();

        using (ProtectedKeyMaterial material = TestKeys.Create(allKeys, pool))
        {
            var slab = Assert.Single(listener.SlabsMappedBy(pool.Id));
            Assert.Equal(128, slab.SlotSize);
            Assert.Equal(Math.Max(16 * 1024, Environment.SystemPageSize) / 128, slab.SlotCount);
            Assert.Equal(material.Protection.ToString(), slab.Protection);
        }

        string hex = Convert.ToHexString(allKeys, 0, 4);
        Assert.DoesNotContain(listener.AllPayloadText(), text => text.Contains(hex, StringComparison.OrdinalIgnoreCase));
    }

    // Returns what every key got (the intersection: a protection some slabs lacked counts as missing).
    private static KeyMemoryProtection CreateUseAndDisposeKeys(ProtectedMemoryPool pool)
    {
        var keys = new List<(byte[] Bytes, ProtectedKeyMaterial Material)>();
        try
        {
            for (int i = 0; i < KeysForThreeSlabs; i++)
            {
                byte[] allKeys = TestKeys.RandomKeyBytes();
                keys.Add((allKeys, TestKeys.Create(allKeys, pool)));
            }

            Assert.All(keys, key => Assert.Equal(TestKeys.SubKeysOf(key.Bytes), TestKeys.ReadSubKeys(key.Material)));
            return keys.Aggregate((KeyMemoryProtection)~0, (common, key) => common & key.Material.Protection);
        }
        finally
        {
            keys.ForEach(key => key.Material.Dispose());
        }
    }

    /// <summary>A platform where no guarded mapping can be made at all.</summary>
    private sealed class NoMappingAllocator : PageAllocator
    {
        public override bool TryAllocate(int length, ref KeyMemoryFailures failures, out ProtectedRegion region)
        {
            region = default;
            failures.Record(KeyMemoryFeature.GuardedMapping, 12);
            return false;
        }

        public override void Free(in ProtectedRegion region) => throw new InvalidOperationException("Nothing was mapped.");
    }
}

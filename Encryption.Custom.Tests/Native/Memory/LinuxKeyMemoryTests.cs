using System.Globalization;
using Encryption.Custom.Native.Memory;

namespace Encryption.Custom.Tests.Native.Memory;

/// <summary>Checks the protections a slab claims against what the kernel reports in <c>/proc/self/smaps</c>.</summary>
public sealed class LinuxKeyMemoryTests : IDisposable
{
    private readonly ProtectedMemoryPool _pool = new();

    public void Dispose() => _pool.Dispose();

    [Fact]
    public void Slab_ClaimedProtections_MatchTheKernelsView()
    {
        if (!OperatingSystem.IsLinux())
        {
            Assert.Skip("/proc/self/smaps is Linux only.");
        }

        SecretSlot slot = _pool.Allocate(128);
        try
        {
            ProtectedRegion region = slot.Slab.Region;
            nint start = AddressOf(region);
            SmapsEntry data = Assert.Single(ReadSmaps(), entry => entry.Start <= start && start < entry.End);

            Assert.Equal(start + region.Length, data.End);
            Assert.Equal(slot.Protection.HasFlag(KeyMemoryProtection.Locked), data.VmFlags.Contains("lo"));
            Assert.Equal(slot.Protection.HasFlag(KeyMemoryProtection.ExcludedFromDumps), data.VmFlags.Contains("dd"));
            Assert.Equal(slot.Protection.HasFlag(KeyMemoryProtection.SecretMemory), data.Path.StartsWith("/secretmem", StringComparison.Ordinal));
            bool hiddenFromChildren = data.VmFlags.Contains("wf") || data.VmFlags.Contains("dc");
            Assert.Equal(slot.Protection.HasFlag(KeyMemoryProtection.WipedOnFork), hiddenFromChildren);
            Assert.Equal("rw", data.Permissions[..2]);
        }
        finally
        {
            _pool.Free(slot);
        }
    }

    [Fact]
    public void Slab_GuardPages_AreInaccessibleMappingsOnBothSides()
    {
        if (!OperatingSystem.IsLinux())
        {
            Assert.Skip("/proc/self/smaps is Linux only.");
        }

        SecretSlot slot = _pool.Allocate(64);
        try
        {
            Assert.True(slot.Protection.HasFlag(KeyMemoryProtection.GuardPages));
            ProtectedRegion region = slot.Slab.Region;
            nint start = AddressOf(region);
            nint end = start + region.Length;
            List<SmapsEntry> entries = ReadSmaps();

            SmapsEntry before = Assert.Single(entries, entry => entry.Start <= start - 1 && start - 1 < entry.End);
            SmapsEntry after = Assert.Single(entries, entry => entry.Start <= end && end < entry.End);
            Assert.Equal("---p", before.Permissions);
            Assert.Equal("---p", after.Permissions);

            // The kernel may merge a guard with a neighbouring PROT_NONE mapping, so each is at least a page.
            Assert.True(before.Start <= start - Environment.SystemPageSize);
            Assert.True(after.End >= end + Environment.SystemPageSize);
        }
        finally
        {
            _pool.Free(slot);
        }
    }

    [Fact]
    public void Pad_IsASeparateMappingFromTheSlots()
    {
        if (!OperatingSystem.IsLinux())
        {
            Assert.Skip("Linux only.");
        }

        SecretSlot slot = _pool.Allocate(128);
        try
        {
            Assert.True(_pool.PadProtection.HasFlag(KeyMemoryProtection.GuardPages));
            Assert.Equal(slot.Slab.Region.Protection, _pool.PadProtection);
        }
        finally
        {
            _pool.Free(slot);
        }
    }

    private static unsafe nint AddressOf(ProtectedRegion region) => (nint)region.Data;

    private static List<SmapsEntry> ReadSmaps()
    {
        var entries = new List<SmapsEntry>();
        SmapsEntry? current = null;
        foreach (string line in File.ReadLines("/proc/self/smaps"))
        {
            string[] fields = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            if (fields.Length >= 5 && fields[0].Contains('-', StringComparison.Ordinal) && !fields[0].EndsWith(':'))
            {
                string[] range = fields[0].Split('-');
                current = new SmapsEntry(
                    nint.Parse(range[0], NumberStyles.HexNumber, CultureInfo.InvariantCulture),
                    nint.Parse(range[1], NumberStyles.HexNumber, CultureInfo.InvariantCulture),
                    fields[1],
                    fields.Length > 5 ? string.Join(' ', fields[5..]) : string.Empty,
                    []);
                entries.Add(current);
            }
            else if (current is not null && fields.Length > 0 && fields[0] == "VmFlags:")
            {
                current.VmFlags.UnionWith(fields[1..]);
            }
        }

        return entries;
    }

    private sealed record SmapsEntry(nint Start, nint End, string Permissions, string Path, HashSet<string> VmFlags);
}

namespace Encryption.Custom.Native.Memory;

/// <summary>A page-aligned block of key memory and how it was obtained (so that its allocator can free it).</summary>
internal readonly unsafe struct ProtectedRegion
{
    public ProtectedRegion(byte* data, int length, KeyMemoryProtection protection, byte* mappingBase, nuint mappingLength)
    {
        Data = data;
        Length = length;
        Protection = protection;
        MappingBase = mappingBase;
        MappingLength = mappingLength;
    }

    /// <summary>The first usable byte (page-aligned).</summary>
    public byte* Data { get; }

    /// <summary>The usable bytes (whole pages).</summary>
    public int Length { get; }

    /// <summary>What the platform granted.</summary>
    public KeyMemoryProtection Protection { get; }

    /// <summary>The start of the whole mapping, guard pages included.</summary>
    public byte* MappingBase { get; }

    /// <summary>The length of the whole mapping, guard pages included.</summary>
    public nuint MappingLength { get; }

    public Span<byte> Bytes => new(Data, Length);
}

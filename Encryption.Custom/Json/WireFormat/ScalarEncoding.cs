using System.Buffers.Binary;

namespace Encryption.Custom.Json.WireFormat;

/// <summary>
/// The 8-byte little-endian plaintexts of scalar values (wire-format.md §3.2): int64 for marker 4, IEEE-754
/// double for marker 3, and int64 1/0 for booleans (marker 5).
/// </summary>
internal static class ScalarEncoding
{
    /// <summary>Every scalar plaintext is exactly this long.</summary>
    public const int Length = 8;

    public static void WriteInt64(long value, Span<byte> destination) => BinaryPrimitives.WriteInt64LittleEndian(destination, value);

    public static void WriteDouble(double value, Span<byte> destination) => BinaryPrimitives.WriteDoubleLittleEndian(destination, value);

    public static void WriteBoolean(bool value, Span<byte> destination) => BinaryPrimitives.WriteInt64LittleEndian(destination, value ? 1 : 0);

    public static long ReadInt64(ReadOnlySpan<byte> source) => BinaryPrimitives.ReadInt64LittleEndian(source);

    public static double ReadDouble(ReadOnlySpan<byte> source) => BinaryPrimitives.ReadDoubleLittleEndian(source);

    /// <summary>Any non-zero value reads as true (writers only ever produce 1 and 0).</summary>
    public static bool ReadBoolean(ReadOnlySpan<byte> source) => BinaryPrimitives.ReadInt64LittleEndian(source) != 0;
}

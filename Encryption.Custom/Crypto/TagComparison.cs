using System.Buffers.Binary;

namespace Encryption.Custom.Crypto;

/// <summary>
/// Compares a computed authentication tag with a stored one in constant time, for the per-cell check every decrypt
/// makes. <c>CryptographicOperations.FixedTimeEquals</c> does the same for any length, but it is compiled without
/// optimization (so that no JIT can shortcut it) and its byte loop calls the span indexer each time: about 6 % of a
/// Mixed 8 KB document's decryption in a profile (docs/benchmarks.md). A tag has a fixed length, so four 64-bit
/// words are XORed and ORed together: every byte is looked at, and no branch depends on the data.
/// </summary>
internal static class TagComparison
{
    /// <summary>Whether the two 32-byte tags are equal; constant time in their contents.</summary>
    /// <exception cref="ArgumentException">A span is not 32 bytes.</exception>
    public static bool Equal(ReadOnlySpan<byte> computed, ReadOnlySpan<byte> stored)
    {
        if (computed.Length != AeadCellLayout.TagSize || stored.Length != AeadCellLayout.TagSize)
        {
            throw new ArgumentException("An authentication tag is 32 bytes.");
        }

        ulong difference = (BinaryPrimitives.ReadUInt64LittleEndian(computed) ^ BinaryPrimitives.ReadUInt64LittleEndian(stored))
            | (BinaryPrimitives.ReadUInt64LittleEndian(computed[8..]) ^ BinaryPrimitives.ReadUInt64LittleEndian(stored[8..]))
            | (BinaryPrimitives.ReadUInt64LittleEndian(computed[16..]) ^ BinaryPrimitives.ReadUInt64LittleEndian(stored[16..]))
            | (BinaryPrimitives.ReadUInt64LittleEndian(computed[24..]) ^ BinaryPrimitives.ReadUInt64LittleEndian(stored[24..]));
        return difference == 0;
    }
}

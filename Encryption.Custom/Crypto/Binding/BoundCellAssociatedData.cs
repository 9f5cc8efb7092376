// The associated data A of a bound cell (wire-format.md "Bound cells"):
//   A = 0x02 ‖ D(32) ‖ marker(1) ‖ LP16(selector)
// 0x02 is the bound cell version, D the document digest (BindingDigestBuilder), marker the value's type marker (so
// the marker, which format 3 leaves unauthenticated, is covered) and selector the UTF-8 of the policy path the value
// was encrypted for (a JSON Pointer, "[]" standing for every array element, so an element keeps its binding when
// the array is reordered).
using System.Buffers.Binary;

namespace Encryption.Custom.Crypto.Binding;

/// <summary>Lays out the associated data A that a bound cell's tag covers.</summary>
internal static class BoundCellAssociatedData
{
    /// <summary>Version, digest, marker and selector length: everything before the selector.</summary>
    public const int FixedSize = 1 + BindingDigestBuilder.DigestSize + 1 + 2;

    /// <summary>The longest selector A can carry.</summary>
    public const int MaxSelectorLength = ushort.MaxValue;

    /// <summary>The length of A for a selector of <paramref name="selectorLength"/> UTF-8 bytes.</summary>
    public static int GetLength(int selectorLength) => FixedSize + selectorLength;

    /// <summary>Writes A to the start of <paramref name="destination"/>.</summary>
    /// <param name="documentDigest">D, 32 bytes.</param>
    /// <param name="marker">The value's type marker.</param>
    /// <param name="selector">The UTF-8 selector, at most 65,535 bytes.</param>
    /// <param name="destination">At least <see cref="GetLength"/> bytes.</param>
    /// <returns>The number of bytes written.</returns>
    /// <exception cref="ArgumentException">The digest is not 32 bytes, the selector is empty or too long, or the destination is too small.</exception>
    public static int Write(ReadOnlySpan<byte> documentDigest, byte marker, ReadOnlySpan<byte> selector, Span<byte> destination)
    {
        if (documentDigest.Length != BindingDigestBuilder.DigestSize)
        {
            throw new ArgumentException("The document digest must be exactly 32 bytes.", nameof(documentDigest));
        }

        if (selector.IsEmpty || selector.Length > MaxSelectorLength)
        {
            throw new ArgumentException("The selector must be 1 to 65,535 UTF-8 bytes.", nameof(selector));
        }

        int length = GetLength(selector.Length);
        if (destination.Length < length)
        {
            AeadErrors.ThrowDestinationTooSmall(nameof(destination));
        }

        destination[0] = AeadCellLayout.BoundVersion;
        documentDigest.CopyTo(destination[1..]);
        destination[1 + BindingDigestBuilder.DigestSize] = marker;
        BinaryPrimitives.WriteUInt16BigEndian(destination[(FixedSize - 2)..], (ushort)selector.Length);
        selector.CopyTo(destination[FixedSize..]);
        return length;
    }
}

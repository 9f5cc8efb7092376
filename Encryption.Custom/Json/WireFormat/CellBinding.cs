// The binding of one document's cells (wire-format.md "Bound cells"): the document digest D, computed once per
// document from its format, algorithm, DEK id, container scope, id and partition key, then combined per value with
// the value's selector and type marker into the associated data A that BoundValueCodec passes to the key.
// A processor builds it when it knows the document's id and partition-key values (CellBindingBuilder) and keeps it
// for the whole document; it is 32 bytes of public data, so it is copied freely and never wiped.
using System.Runtime.CompilerServices;
using Encryption.Custom.Crypto.Binding;

namespace Encryption.Custom.Json.WireFormat;

/// <summary>The precomputed document digest D of one document, for binding each of its values.</summary>
internal readonly struct CellBinding
{
    private readonly Digest _digest;

    internal CellBinding(ReadOnlySpan<byte> digest)
    {
        if (digest.Length != BindingDigestBuilder.DigestSize)
        {
            throw new ArgumentException("A document digest is exactly 32 bytes.", nameof(digest));
        }

        digest.CopyTo(_digest);
    }

    /// <summary>Whether this is a real binding (the default value is not, and binds nothing).</summary>
    public bool IsEmpty => ((ReadOnlySpan<byte>)_digest).IndexOfAnyExcept((byte)0) < 0;

    /// <summary>D itself (public data): the document commitment covers it too.</summary>
    [System.Diagnostics.CodeAnalysis.UnscopedRef]
    public ReadOnlySpan<byte> DocumentDigest => _digest;

    /// <summary>A copy of D (tests and diagnostics; public data).</summary>
    public byte[] GetDocumentDigest() => ((ReadOnlySpan<byte>)_digest).ToArray();

    /// <summary>The length of A for a selector of <paramref name="selectorLength"/> UTF-8 bytes.</summary>
    public static int GetAssociatedDataLength(int selectorLength) => BoundCellAssociatedData.GetLength(selectorLength);

    /// <summary>Writes A = 0x02 ‖ D ‖ marker ‖ LP16(selector) to <paramref name="destination"/>.</summary>
    /// <param name="marker">The value's type marker.</param>
    /// <param name="selector">The UTF-8 policy path the value is encrypted for (not its concrete array index).</param>
    /// <param name="destination">At least <see cref="GetAssociatedDataLength"/> bytes.</param>
    /// <returns>The number of bytes written.</returns>
    /// <exception cref="InvalidOperationException">This binding is the default value.</exception>
    public int WriteAssociatedData(TypeMarker marker, ReadOnlySpan<byte> selector, Span<byte> destination)
    {
        if (IsEmpty)
        {
            throw new InvalidOperationException("The cell binding was never computed for a document.");
        }

        return BoundCellAssociatedData.Write(_digest, (byte)marker, selector, destination);
    }

    [InlineArray(BindingDigestBuilder.DigestSize)]
    private struct Digest
    {
        private byte _first;
    }
}

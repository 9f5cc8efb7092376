// The document commitment of the extended format (feature 'commit', wire-format.md "Document commitment"):
//   h0 = 32 zero bytes;  h_i = SHA-256(h_{i-1} ‖ marker_i ‖ tag_i)      one step per cell, in document order
//   C  = HMAC-SHA256(commitKey, "EC-COMMIT-v1" ‖ D ‖ u16be(k) ‖ LP16(s_1) ‖ … ‖ LP16(s_k) ‖ u32be(n) ‖ h_n)
// where s_1..s_k are the paths _ep lists (without the anchor), sorted by their UTF-8 bytes, n the number of cells and
// D the document digest of bound cells. Each cell's tag already covers the cell's own place (bound cells) or its
// ciphertext (deterministic cells), so the chain only has to fix which cells the document holds and in what order.
// Why a hash chain and not one streaming MAC over every tag: a processor walks the document once and sees the cells
// one by one; a chain step is a one-shot hash over 65 bytes on the stack, so the stream processor keeps 0 B per
// operation without an incremental HMAC object, and the chain is collision resistant as SHA-256 is.
using System.Buffers;
using System.Buffers.Binary;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;

namespace Encryption.Custom.Crypto.Binding;

/// <summary>Computes the document commitment held in the format 101 anchor when the document requires <c>commit</c>.</summary>
internal static class DocumentCommitment
{
    /// <summary>The commitment's size: an HMAC-SHA256.</summary>
    public const int Size = 32;

    /// <summary>The size of one cell's tag (the bytes after the cell's version byte).</summary>
    public const int TagSize = 32;

    /// <summary>The domain separator that starts the MAC input.</summary>
    public static ReadOnlySpan<byte> Domain => "EC-COMMIT-v1"u8;

    /// <summary>
    /// The selector block <c>u16be(k) ‖ LP16(s_1) ‖ … ‖ LP16(s_k)</c> of <paramref name="listedPaths"/>, sorted by
    /// their UTF-8 bytes: computed once per set of paths (a writer's plan), not per document.
    /// </summary>
    /// <exception cref="ArgumentException">More than 65,535 paths, or a path longer than 65,535 UTF-8 bytes.</exception>
    public static byte[] CreateSelectorBlock(IEnumerable<string> listedPaths)
    {
        byte[][] sorted = [.. listedPaths.Select(System.Text.Encoding.UTF8.GetBytes)];
        Array.Sort(sorted, static (a, b) => a.AsSpan().SequenceCompareTo(b));
        if (sorted.Length > ushort.MaxValue || sorted.Any(s => s.Length > ushort.MaxValue))
        {
            throw new ArgumentException("A commitment covers at most 65,535 paths of at most 65,535 UTF-8 bytes each.", nameof(listedPaths));
        }

        byte[] block = new byte[2 + sorted.Sum(s => 2 + s.Length)];
        BinaryPrimitives.WriteUInt16BigEndian(block, (ushort)sorted.Length);
        int offset = 2;
        foreach (byte[] selector in sorted)
        {
            BinaryPrimitives.WriteUInt16BigEndian(block.AsSpan(offset), (ushort)selector.Length);
            selector.CopyTo(block, offset + 2);
            offset += 2 + selector.Length;
        }

        return block;
    }

    /// <summary>
    /// Computes the commitment into <paramref name="destination"/> under the commitment key of <paramref name="aead"/>
    /// (the key never leaves it): the MAC input is passed in three public parts, nothing is copied to the heap.
    /// </summary>
    /// <exception cref="ArgumentException">A length is wrong.</exception>
    public static void Compute(AeadAes256CbcHmacSha256 aead, ReadOnlySpan<byte> documentDigest, ReadOnlySpan<byte> selectorBlock, in CommitmentChain chain, Span<byte> destination)
    {
        if (documentDigest.Length != BindingDigestBuilder.DigestSize || destination.Length < Size || selectorBlock.Length < 2)
        {
            throw new ArgumentException("The digest is 32 bytes, the selector block at least its count, and the destination 32 bytes.");
        }

        Span<byte> head = stackalloc byte[12 + BindingDigestBuilder.DigestSize];
        Domain.CopyTo(head);
        documentDigest.CopyTo(head[Domain.Length..]);
        Span<byte> tail = stackalloc byte[4 + Size];
        BinaryPrimitives.WriteUInt32BigEndian(tail, chain.Count);
        chain.Value.CopyTo(tail[4..]);
        aead.ComputeDocumentMac(AeadSubKey.Commitment, head, selectorBlock, tail, destination[..Size]);
    }

    /// <summary>
    /// Computes the commitment into <paramref name="destination"/>.
    /// </summary>
    /// <param name="commitmentKey">The DEK's commitment key (label "Encryption.Custom document commitment key …").</param>
    /// <param name="documentDigest">D, 32 bytes.</param>
    /// <param name="selectorBlock">The listed paths, as <see cref="CreateSelectorBlock"/> lays them out.</param>
    /// <param name="chain">The chain over the document's cells.</param>
    /// <param name="destination">At least <see cref="Size"/> bytes.</param>
    /// <exception cref="ArgumentException">A length is wrong.</exception>
    public static void Compute(ReadOnlySpan<byte> commitmentKey, ReadOnlySpan<byte> documentDigest, ReadOnlySpan<byte> selectorBlock, in CommitmentChain chain, Span<byte> destination)
    {
        if (documentDigest.Length != BindingDigestBuilder.DigestSize || destination.Length < Size || selectorBlock.Length < 2)
        {
            throw new ArgumentException("The digest is 32 bytes, the selector block at least its count, and the destination 32 bytes.");
        }

        int length = Domain.Length + BindingDigestBuilder.DigestSize + selectorBlock.Length + 4 + Size;
        byte[]? rented = length > 1024 ? ArrayPool<byte>.Shared.Rent(length) : null;
        Span<byte> input = rented is null ? stackalloc byte[1024] : rented;
        try
        {
            int offset = 0;
            Domain.CopyTo(input);
            offset += Domain.Length;
            documentDigest.CopyTo(input[offset..]);
            offset += documentDigest.Length;
            selectorBlock.CopyTo(input[offset..]);
            offset += selectorBlock.Length;
            BinaryPrimitives.WriteUInt32BigEndian(input[offset..], chain.Count);
            offset += 4;
            chain.Value.CopyTo(input[offset..]);
            offset += Size;
            HMACSHA256.HashData(commitmentKey, input[..offset], destination);
        }
        finally
        {
            if (rented is not null)
            {
                ArrayPool<byte>.Shared.Return(rented);
            }
        }
    }
}

/// <summary>The running hash chain over a document's cells (<c>h_i</c>), a value type kept on the walker's stack.</summary>
internal struct CommitmentChain
{
    private Hash _value;

    /// <summary>The number of cells appended.</summary>
    public uint Count { get; private set; }

    /// <summary>The current chain value (<c>h_n</c>; 32 zero bytes before the first cell).</summary>
    [UnscopedRef]
    public readonly ReadOnlySpan<byte> Value => _value;

    /// <summary>Appends one cell: <c>h = SHA-256(h ‖ marker ‖ tag)</c>.</summary>
    /// <param name="marker">The value's type marker.</param>
    /// <param name="cell">The cell (version byte, then its 32-byte tag, then the rest).</param>
    /// <exception cref="ArgumentException">The cell is shorter than a version byte and a tag.</exception>
    public void Append(byte marker, ReadOnlySpan<byte> cell)
    {
        if (cell.Length < 1 + DocumentCommitment.TagSize)
        {
            throw new ArgumentException("A cell holds a version byte and a 32-byte tag.", nameof(cell));
        }

        Span<byte> input = stackalloc byte[DocumentCommitment.Size + 1 + DocumentCommitment.TagSize];
        ((ReadOnlySpan<byte>)_value).CopyTo(input);
        input[DocumentCommitment.Size] = marker;
        cell.Slice(1, DocumentCommitment.TagSize).CopyTo(input[(DocumentCommitment.Size + 1)..]);
        SHA256.HashData(input, _value);
        Count = checked(Count + 1);
    }

    [InlineArray(DocumentCommitment.Size)]
    private struct Hash
    {
        private byte _first;
    }
}

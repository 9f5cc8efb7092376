using System.Buffers;
using System.Buffers.Binary;
using System.Diagnostics;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Rules;

// The document commitment (wire-format.md "Document commitment"): which plans commit, the selector block the
// commitment covers, and the envelope whose anchor carries it.
internal sealed partial class EncryptionPlan
{
    // Path indexes sorted by their UTF-8 text (the document commitment's selector order). The selector block lists
    // _ep's paths in this order: fixed once per plan, so a document's block is one pass over its flags.
    private readonly int[] _commitOrder;

    private static int[] SortBySelector(byte[][] selectors)
    {
        int[] order = [.. Enumerable.Range(0, selectors.Length)];
        Array.Sort(order, (a, b) => selectors[a].AsSpan().SequenceCompareTo(selectors[b]));
        return order;
    }

    /// <summary>Whether documents carry the document commitment (<c>commit</c>): binding plans whose target asks for it.</summary>
    public bool Commits => Binding?.Commit == true;

    /// <summary>The length of the commitment's selector block for the paths flagged <see cref="EncryptedFlag"/>.</summary>
    public int GetSelectorBlockLength(ReadOnlySpan<byte> encrypted)
    {
        int length = 2;
        for (int i = 0; i < _selectors.Length; i++)
        {
            if (encrypted[i] == EncryptedFlag)
            {
                length += 2 + _selectors[i].Length;
            }
        }

        return length;
    }

    /// <summary>
    /// Writes the commitment's selector block <c>u16be(k) ‖ LP16(s_1) ‖ …</c> of the paths flagged
    /// <see cref="EncryptedFlag"/> (what <see cref="WriteEnvelope(IBufferWriter{byte}, ReadOnlySpan{byte})"/> lists after the anchor), sorted by UTF-8 bytes.
    /// </summary>
    /// <returns>The number of bytes written.</returns>
    public int WriteSelectorBlock(ReadOnlySpan<byte> encrypted, Span<byte> destination)
    {
        int offset = 2;
        int count = 0;
        foreach (int i in _commitOrder)
        {
            if (encrypted[i] != EncryptedFlag)
            {
                continue;
            }

            byte[] selector = _selectors[i];
            BinaryPrimitives.WriteUInt16BigEndian(destination[offset..], checked((ushort)selector.Length));
            selector.CopyTo(destination[(offset + 2)..]);
            offset += 2 + selector.Length;
            count++;
        }

        BinaryPrimitives.WriteUInt16BigEndian(destination, checked((ushort)count));
        return offset;
    }

    /// <summary>
    /// Like <see cref="WriteEnvelope(IBufferWriter{byte}, ReadOnlySpan{byte})"/>, with the anchor holding
    /// <paramref name="commitment"/> (32 bytes) instead of zeros. Same length.
    /// </summary>
    public void WriteEnvelope(IBufferWriter<byte> output, ReadOnlySpan<byte> encrypted, ReadOnlySpan<byte> commitment)
    {
        Debug.Assert(Commits && commitment.Length == ExtendedEnvelope.CommitmentLength, "A committing plan.");
        output.Write(_envelopePrefix.AsSpan(0, ExtendedEnvelope.AnchorValueOffset));
        Span<byte> anchor = output.GetSpan(ExtendedEnvelope.AnchorBase64Length);
        ExtendedEnvelope.WriteCommittedAnchor(commitment, anchor);
        output.Advance(ExtendedEnvelope.AnchorBase64Length);
        WriteEnvelopeFrom(output, encrypted, ExtendedEnvelope.AnchorValueOffset + ExtendedEnvelope.AnchorBase64Length);
    }
}

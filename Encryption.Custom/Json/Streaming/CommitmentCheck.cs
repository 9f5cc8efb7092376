// The stream processor's check of the document commitment (wire-format.md "Document commitment"), before any value
// is decrypted: the chain over the cells at the listed positions in document order (top-level listed properties and
// the leaves nested selectors pick, as NestedDecryptor finds them), the selector block of the paths _ep lists sorted
// by their UTF-8 bytes, and C under the key's commitment key, compared in fixed time with the anchor's. Everything on
// the stack (the selector block is rented only past the stack limit), so committed reads stay at 0 B per operation.
using System.Buffers;
using System.Buffers.Binary;
using System.Buffers.Text;
using System.Security.Cryptography;
using System.Text.Json;
using Encryption.Custom.Crypto.Binding;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>Verifies a committed document's anchor against its cells.</summary>
internal static class CommitmentCheck
{
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.CellBindingMismatch"/> when the commitment does not verify.</exception>
    public static void Verify(ReadOnlySpan<byte> input, DecryptionScan scan, in DocumentRecord document, DataEncryptionKey key, in CellBinding binding, int maxDepth)
    {
        PropertyRecord[] properties = scan.Properties;
        var chain = default(CommitmentChain);
        Span<byte> idText = stackalloc byte[IdCellText.StandardScratchLength];
        for (int i = document.FirstProperty; i < document.FirstProperty + document.PropertyCount; i++)
        {
            ref readonly PropertyRecord property = ref properties[i];
            if (property.PathIndex >= 0 && IdCellText.IsIdName(scan.GetName(input, property)))
            {
                // The id's cell in its stored alphabet (IdCellText); an escaped or non-canonical one is no step.
                if (property.ValueType == JsonTokenType.String && !property.ValueEscaped)
                {
                    AppendBase64(ref chain, IdCellText.ToStandard(input[(property.ValueStart + 1)..(property.ValueEnd - 1)], idText));
                }
            }
            else if (property.PathIndex >= 0)
            {
                Append(ref chain, input[property.ValueStart..property.ValueEnd], property.ValueType, property.ValueEscaped);
            }
            else if (property.NestedChild >= 0)
            {
                var reader = new Utf8JsonReader(input[property.ValueStart..property.ValueEnd], JsonDepth.ReaderOptions(maxDepth, 0));
                reader.Read();
                Walk(ref reader, document.Selectors!.Root.GetChild(property.NestedChild), ref chain, maxDepth);
            }
        }

        Span<byte> stored = stackalloc byte[ExtendedEnvelope.CommitmentLength];
        ReadAnchor(input, properties[document.AnchorProperty], stored);

        int blockLength = 2;
        for (int i = 0; i < scan.PathCount; i++)
        {
            blockLength += 3 + scan.Paths[i].NameLength;
        }

        byte[][] nested = document.Selectors?.Utf8Names ?? [];
        foreach (byte[] name in nested)
        {
            blockLength += 3 + name.Length;
        }

        byte[]? rented = null;
        Span<byte> block = blockLength <= 1024 ? stackalloc byte[1024] : (rented = ArrayPool<byte>.Shared.Rent(blockLength));
        try
        {
            block = block[..WriteSortedBlock(scan, nested, block)];
            Span<byte> computed = stackalloc byte[DocumentCommitment.Size];
            key.ComputeCommitmentLeased(binding.DocumentDigest, block, chain, computed);
            if (!CryptographicOperations.FixedTimeEquals(computed, stored))
            {
                throw ExtendedEnvelope.CommitmentMismatch(document.KeyId!);
            }
        }
        finally
        {
            if (rented is not null)
            {
                ArrayPool<byte>.Shared.Return(rented);
            }
        }
    }

    // The listed paths ('/' + name each), sorted by their bytes without a sort buffer: each round emits the smallest
    // entry greater than the last one emitted (entries are distinct: the envelope reader refuses repeats). k is small
    // (the paths of one policy), so k² comparisons cost less than keeping an index array.
    private static int WriteSortedBlock(DecryptionScan scan, byte[][] nested, Span<byte> block)
    {
        int count = scan.PathCount + nested.Length;
        BinaryPrimitives.WriteUInt16BigEndian(block, checked((ushort)count));
        int offset = 2;
        ReadOnlySpan<byte> last = default;
        bool any = false;
        for (int round = 0; round < count; round++)
        {
            ReadOnlySpan<byte> next = default;
            bool found = false;
            for (int i = 0; i < count; i++)
            {
                ReadOnlySpan<byte> candidate = i < scan.PathCount ? scan.GetPathName(scan.Paths[i]) : nested[i - scan.PathCount];
                if ((!any || candidate.SequenceCompareTo(last) > 0) && (!found || candidate.SequenceCompareTo(next) < 0))
                {
                    next = candidate;
                    found = true;
                }
            }

            BinaryPrimitives.WriteUInt16BigEndian(block[offset..], checked((ushort)(next.Length + 1)));
            block[offset + 2] = (byte)'/';
            next.CopyTo(block[(offset + 3)..]);
            offset += 3 + next.Length;
            last = next;
            any = true;
        }

        return offset;
    }

    private static void ReadAnchor(ReadOnlySpan<byte> input, in PropertyRecord anchor, Span<byte> commitment)
    {
        ReadOnlySpan<byte> token = input[anchor.ValueStart..anchor.ValueEnd];
        Span<byte> unescaped = stackalloc byte[128];
        bool valid = !anchor.ValueEscaped
            ? ExtendedEnvelope.TryReadCommittedAnchor(token[1..^1], commitment)
            : token.Length <= unescaped.Length && ExtendedEnvelope.TryReadCommittedAnchor(unescaped[..JsonStringUnescaper.Unescape(token, unescaped)], commitment);
        if (!valid)
        {
            JsonErrors.ThrowMalformedEnvelope("the anchor property '_ex' does not hold an anchor with a document commitment.");
        }
    }

    private static void Walk(ref Utf8JsonReader reader, SelectorNode node, ref CommitmentChain chain, int maxDepth)
    {
        if (node.IsLeaf)
        {
            if (reader.TokenType == JsonTokenType.String)
            {
                if (reader.ValueIsEscaped)
                {
                    AppendEscaped(ref chain, ref reader);
                }
                else
                {
                    AppendBase64(ref chain, reader.ValueSpan);
                }
            }
            else
            {
                JsonDepth.SkipValue(ref reader, maxDepth, 0);
            }

            return;
        }

        if (reader.TokenType == JsonTokenType.StartObject && node.ChildCount > 0)
        {
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                int child = SelectorLookup.Find(ref reader, node, out _);
                reader.Read();
                if (child < 0)
                {
                    JsonDepth.SkipValue(ref reader, maxDepth, 0);
                    continue;
                }

                Walk(ref reader, node.GetChild(child), ref chain, maxDepth);
            }

            return;
        }

        if (reader.TokenType == JsonTokenType.StartArray && node.Elements is { } elements)
        {
            while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
            {
                Walk(ref reader, elements, ref chain, maxDepth);
            }

            return;
        }

        JsonDepth.SkipValue(ref reader, maxDepth, 0);
    }

    // A top-level property's token, quotes included. Not a string: no cell (the decryption refuses it).
    private static void Append(ref CommitmentChain chain, ReadOnlySpan<byte> token, JsonTokenType type, bool escaped)
    {
        if (type != JsonTokenType.String)
        {
            return;
        }

        if (!escaped)
        {
            AppendBase64(ref chain, token[1..^1]);
            return;
        }

        // Our writers never escape base64; another writer may (\/). Pooled scratch, no allocation.
        var scratch = default(ScratchBuffer);
        try
        {
            Span<byte> plain = scratch.Rent(token.Length);
            AppendBase64(ref chain, plain[..JsonStringUnescaper.Unescape(token, plain)]);
        }
        finally
        {
            scratch.Dispose();
        }
    }

    private static void AppendEscaped(ref CommitmentChain chain, ref Utf8JsonReader reader)
    {
        var scratch = default(ScratchBuffer);
        try
        {
            Span<byte> plain = scratch.Rent(reader.ValueSpan.Length);
            AppendBase64(ref chain, plain[..JsonStringUnescaper.CopyString(ref reader, plain)]);
        }
        finally
        {
            scratch.Dispose();
        }
    }

    // One step from a cell's base64 (unescaped string content): its first 48 characters hold marker, version and tag.
    // A value too short to be a cell is no step; the decryption refuses it as not a cell.
    private static void AppendBase64(ref CommitmentChain chain, ReadOnlySpan<byte> base64)
    {
        Span<byte> head = stackalloc byte[36];
        if (base64.Length < 48 || Base64.DecodeFromUtf8(base64[..48], head, out _, out int written, isFinalBlock: false) != OperationStatus.Done || written < 36)
        {
            return;
        }

        chain.Append(head[0], head[1..36]);
    }
}

using System.Buffers;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using System.Text.Json;
using Encryption.Custom.Crypto.Binding;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.Tokens;
using Encryption.Custom.Json.Values;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

// One document value to its cell: marker and plaintext by the one mapping (Json/Values/PlainValue), the cell written
// as quoted base64, and the cell's step in the document commitment. Documents (StreamEncryptor.cs) and nested
// selectors come here; values encrypted on their own go through Json/Values/StoredValue.
internal static partial class StreamEncryptor
{
    // The value of the plan's top-level path at the reader, with its query tokens when the path declares them.
    private static int EncryptValue(ref Utf8JsonReader reader, ReadOnlySpan<byte> input, scoped in DocumentEncryption pass, int pathIndex, ref CommitmentChain chain, Span<byte> tokens = default) =>
        EncryptValue(ref reader, input, pass.Output, pass.Key, new CellTarget(pass.Plan, pathIndex, pass.Binding, pass.Plan.GetQueryTokens(pathIndex), tokens), pass.MaxDepth, ref chain);

    /// <summary>
    /// Encrypts the value at the reader (positioned on its first token) and writes it quoted, classified by
    /// <see cref="PlainValue"/> as every value is, for documents and nested selectors. When the target commits, the cell written is appended to
    /// <paramref name="chain"/>; with a token rule, the value's query tokens are written to the target's tokens.
    /// </summary>
    /// <param name="reader">On the value's first token; left on its last.</param>
    /// <param name="input">The reader's input.</param>
    /// <param name="output">Receives <c>"base64"</c>.</param>
    /// <param name="key">The leased key.</param>
    /// <param name="cell">How the value is encrypted, and what its errors name.</param>
    /// <param name="maxDepth">The deepest nesting accepted.</param>
    /// <param name="chain">The document commitment's chain (unused unless the target commits).</param>
    /// <returns>The number of bytes written (the quoted base64).</returns>
    internal static int EncryptValue(
        ref Utf8JsonReader reader,
        ReadOnlySpan<byte> input,
        IBufferWriter<byte> output,
        DataEncryptionKey key,
        scoped in CellTarget cell,
        int maxDepth,
        ref CommitmentChain chain)
    {
        // The marker (and a scalar's plaintext) by the one mapping (PlainValue); strings and containers are encrypted
        // from the document's own bytes, so this loop copies nothing it does not have to.
        Span<byte> scalar = stackalloc byte[ScalarEncoding.Length];
        TypeMarker marker = PlainValue.Classify(ref reader, scalar, !cell.Deterministic.IsEmpty, cell.Path, cell.KeyId);
        switch (marker)
        {
            case TypeMarker.String:
                return reader.ValueIsEscaped
                    ? EncryptEscapedString(input[(int)reader.TokenStartIndex..(int)reader.BytesConsumed], output, key, cell, ref chain)
                    : WriteEncrypted(output, key, TypeMarker.String, reader.ValueSpan, cell, ref chain);

            case TypeMarker.Object:
            case TypeMarker.Array:
                int start = (int)reader.TokenStartIndex;
                JsonDepth.SkipContainer(ref reader, maxDepth, 0);
                return EncryptContainer(input[start..(int)reader.BytesConsumed], output, key, marker, cell, ref chain);

            default:
                return WriteEncrypted(output, key, marker, scalar, cell, ref chain);
        }
    }

    // An escaped string, from its token (quotes included), whether a scan recorded it or a reader is on it.
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal static int EncryptEscapedString(ReadOnlySpan<byte> quotedToken, IBufferWriter<byte> output, DataEncryptionKey key, scoped in CellTarget cell, ref CommitmentChain chain)
    {
        var scratch = default(ScratchBuffer);
        int maxLength = quotedToken.Length;
        Span<byte> plainText = maxLength <= ScratchBuffer.StackLimit ? stackalloc byte[ScratchBuffer.StackLimit] : scratch.Rent(maxLength);
        int length = 0;
        try
        {
            length = JsonStringUnescaper.Unescape(quotedToken, plainText);
            return WriteEncrypted(output, key, TypeMarker.String, plainText[..length], cell, ref chain);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(plainText[..length]);
            scratch.Dispose();
        }
    }

    private static int EncryptContainer(ReadOnlySpan<byte> json, IBufferWriter<byte> output, DataEncryptionKey key, TypeMarker marker, scoped in CellTarget cell, ref CommitmentChain chain)
    {
        // Already compact (the usual serializer output): encrypt the document's bytes directly. Objects and arrays
        // are never deterministic (refused above), so no IV context.
        return JsonWhitespace.ContainsWhitespace(json)
            ? EncryptCompacted(json, output, key, marker, cell, ref chain)
            : WriteEncrypted(output, key, marker, json, cell, ref chain);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int EncryptCompacted(ReadOnlySpan<byte> json, IBufferWriter<byte> output, DataEncryptionKey key, TypeMarker marker, scoped in CellTarget cell, ref CommitmentChain chain)
    {
        var scratch = default(ScratchBuffer);
        Span<byte> compact = json.Length <= ScratchBuffer.StackLimit ? stackalloc byte[ScratchBuffer.StackLimit] : scratch.Rent(json.Length);
        int length = 0;
        try
        {
            length = JsonWhitespace.Compact(json, compact);
            return WriteEncrypted(output, key, marker, compact[..length], cell, ref chain);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(compact[..length]);
            scratch.Dispose();
        }
    }

    private static int WriteEncrypted(IBufferWriter<byte> output, DataEncryptionKey key, TypeMarker marker, ReadOnlySpan<byte> plainText, scoped in CellTarget cell, ref CommitmentChain chain)
    {
        if (cell.TokenRule is { } tokenRule)
        {
            // From the plaintext as the cell holds it, before anything is written: a value the declaration refuses
            // leaves no cell behind, and readers recompute from the same bytes.
            QueryTokens.ComputeFromPlainText(key, tokenRule, marker, plainText, cell.Tokens);
        }

        int encodedLength = EncryptedValueCodec.GetEncodedLength(key, plainText.Length);
        Span<byte> span = output.GetSpan(encodedLength + 2);
        span[0] = (byte)'"';
        int written = cell.Deterministic.IsEmpty && !cell.Binding.IsEmpty
            ? BoundValueCodec.Encode(key, cell.Binding, cell.Selector, marker, plainText, span.Slice(1, encodedLength))
            : EncryptedValueCodec.Encode(key, marker, plainText, span.Slice(1, encodedLength), cell.Deterministic);
        if (cell.Commit)
        {
            AppendToChain(ref chain, marker, span.Slice(1, written));
        }

        if (IdCellText.IsIdSelector(cell.Selector))
        {
            // Cosmos DB refuses '/' in an id: stored in the URL-safe alphabet (never bound, so never chained).
            written = IdCellText.ToStored(span.Slice(1, written));
        }

        span[written + 1] = (byte)'"';
        output.Advance(written + 2);
        return written + 2;
    }

    // One chain step from the base64 just written: its first 48 characters decode to the marker, the cell's version
    // byte and its 32-byte tag (every cell is longer), which is all a step covers.
    private static void AppendToChain(ref CommitmentChain chain, TypeMarker marker, ReadOnlySpan<byte> base64)
    {
        Span<byte> head = stackalloc byte[36];
        System.Buffers.Text.Base64.DecodeFromUtf8(base64[..48], head, out _, out _, isFinalBlock: false);
        chain.Append((byte)marker, head[1..]);
    }
}

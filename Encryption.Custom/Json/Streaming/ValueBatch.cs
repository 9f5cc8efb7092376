using System.Buffers;
using System.Buffers.Text;
using System.Diagnostics;
using System.Security.Cryptography;
using System.Text.Json;
using Encryption.Custom.Crypto.Chains;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.Tokens;
using Encryption.Custom.Json.Values;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// A document's values gathered for the batched encrypt (issue 37): each value's plaintext (into a pooled arena), its
/// IV context and its place in the document, top-level values and the values nested selectors pick alike. Every
/// <see cref="Capacity"/> values, and at the end, the key encrypts them as interleaved chains and they are written in
/// document order with the verbatim bytes between them: the bytes the value-by-value loop writes.
/// </summary>
/// <remarks>
/// It counts the output as the value-by-value loop counts it (<see cref="Written"/> up to <see cref="Cursor"/>), so
/// the caller makes the same output-length checks at the same places. The plaintext arena is wiped after each batch
/// and by <see cref="WipePlainTexts"/> on failure.
/// </remarks>
internal ref struct ValueBatch : IValueSink
{
    /// <summary>The most values one batch holds.</summary>
    public const int Capacity = 64;

    // A cell's header (version, tag, IV) and at most one block of padding.
    private const int CellMaxOverhead = Crypto.AeadCellLayout.HeaderSize + Crypto.AeadCellLayout.BlockSize;

    private readonly ReadOnlySpan<byte> _document;
    private readonly Span<byte> _plainTexts;
    private readonly Span<byte> _blobs;
    private readonly Span<byte> _contexts;
    private readonly Span<AeadBatchValue> _values;
    private readonly Span<Place> _places;
    private int _count;
    private int _plainTextsUsed;
    private int _blobsUsed;
    private int _contextsUsed;
    private int _plainTextsReserved;
    private int _writeCursor;

    // Where the value being gathered starts (from Reserve to Commit).
    private int _valueStart;

    /// <param name="document">The whole document.</param>
    /// <param name="arenas">Plaintexts, blobs and IV contexts (<see cref="GetArenaLengths"/>).</param>
    /// <param name="values">At least <see cref="Capacity"/> records.</param>
    /// <param name="places">At least <see cref="Capacity"/> records.</param>
    public ValueBatch(ReadOnlySpan<byte> document, (byte[] PlainTexts, byte[] Blobs, byte[] Contexts) arenas, Span<AeadBatchValue> values, Span<Place> places)
    {
        _document = document;
        _plainTexts = arenas.PlainTexts;
        _blobs = arenas.Blobs;
        _contexts = arenas.Contexts;
        _values = values;
        _places = places;
    }

    /// <inheritdoc/>
    public int Cursor { get; private set; }

    /// <inheritdoc/>
    public long Written { get; private set; }

    /// <inheritdoc/>
    public int Offset { get; set; }

    /// <inheritdoc/>
    /// <remarks>Always empty: the document commitment comes only with bound cells, which the batch does not take.</remarks>
    public readonly Crypto.Binding.CommitmentChain Chain => default;

    /// <summary>How long each arena must be for a document of <paramref name="documentLength"/> bytes under <paramref name="plan"/>.</summary>
    /// <remarks>
    /// A plaintext is at most its JSON text, or a scalar's 8 bytes, so the values of one batch fit in the document's
    /// length plus 8 per value; a blob is marker ‖ cell; an IV context is a deterministic prefix and the marker.
    /// </remarks>
    public static (int PlainTexts, int Blobs, int Contexts) GetArenaLengths(int documentLength, EncryptionPlan plan)
    {
        int plainTexts = documentLength + (ScalarEncoding.Length * Capacity);
        int longestPrefix = 0;
        for (int i = 0; i < plan.PathCount; i++)
        {
            longestPrefix = Math.Max(longestPrefix, plan.GetDeterministicPrefix(i).Length);
        }

        return (plainTexts, plainTexts + (Capacity * (1 + CellMaxOverhead)), Capacity * (longestPrefix + 1));
    }

    /// <summary>Gathers a top-level value the scan recorded (unescaped strings and booleans from its bytes).</summary>
    public void TakeTopLevel(scoped in DocumentEncryption pass, in PropertyRecord property, int pathIndex)
    {
        Span<byte> plainText = Reserve(pass, property.ValueStart, property.ValueEnd - property.ValueStart);
        Span<byte> scalar = stackalloc byte[ScalarEncoding.Length];
        TypeMarker marker = ScannedValue.Classify(_document, property, pass.Plan, pathIndex, scalar, out ReadOnlySpan<byte> text);
        int length = marker switch
        {
            // An escaped string: the reader unescapes it with its exact rules.
            TypeMarker.String when property.ValueEscaped => JsonStringUnescaper.Unescape(_document[property.ValueStart..property.ValueEnd], plainText),
            TypeMarker.String => Copy(text, plainText),
            TypeMarker.Object or TypeMarker.Array => property.ValueCompact ? Copy(text, plainText) : CopyCompact(text, plainText),
            _ => Copy(scalar, plainText),
        };

        Commit(pass, pathIndex, marker, length, property.ValueEnd);
    }

    /// <summary>Gathers a value a nested selector picks (the reader over the value <see cref="Offset"/> starts).</summary>
    public void Take(ref Utf8JsonReader reader, scoped in DocumentEncryption pass, int rule)
    {
        int start = Offset + (int)reader.TokenStartIndex;
        Span<byte> plainText = Reserve(pass, start, pass.Document.Length - (int)reader.TokenStartIndex);
        int length = FromReader(ref reader, pass.Document, pass, rule, plainText, out TypeMarker marker);
        Commit(pass, rule, marker, length, Offset + (int)reader.BytesConsumed);
    }

    /// <summary>Encrypts and writes what is gathered (the values are then written up to <see cref="Cursor"/>).</summary>
    public void Finish(scoped in DocumentEncryption pass)
    {
        if (_count == 0)
        {
            return;
        }

        pass.Key.EncryptBatchLeased(_plainTexts[.._plainTextsUsed], _contexts[.._contextsUsed], _blobs[.._blobsUsed], _values[.._count]);
        IBufferWriter<byte> output = pass.Output;
        foreach (Place place in _places[.._count])
        {
            output.Write(_document[_writeCursor..place.ValueStart]);
            ReadOnlySpan<byte> blob = _blobs.Slice(place.BlobOffset, place.BlobLength);
            int encodedLength = Base64.GetMaxEncodedToUtf8Length(blob.Length);
            Span<byte> span = output.GetSpan(encodedLength + 2);
            span[0] = (byte)'"';
            OperationStatus status = Base64.EncodeToUtf8(blob, span[1..], out _, out int encoded);
            Debug.Assert(status == OperationStatus.Done && encoded == encodedLength, "Base64 cannot fail with a large enough buffer.");
            span[encoded + 1] = (byte)'"';
            output.Advance(encoded + 2);
            _writeCursor = place.ValueEnd;
        }

        WipePlainTexts();
        _count = _plainTextsUsed = _blobsUsed = _contextsUsed = 0;
    }

    /// <summary>Wipes every plaintext byte the arena may hold, up to where a value that failed midway could have written.</summary>
    public void WipePlainTexts()
    {
        CryptographicOperations.ZeroMemory(_plainTexts[..Math.Min(_plainTexts.Length, _plainTextsReserved)]);
        _plainTextsReserved = 0;
    }

    // Room for one more value whose JSON text is at most jsonLength bytes: a full batch is encrypted first.
    private Span<byte> Reserve(scoped in DocumentEncryption pass, int valueStart, int jsonLength)
    {
        if (_count == Capacity)
        {
            Finish(pass);
        }

        Written += valueStart - Cursor;
        _valueStart = valueStart;
        _plainTextsReserved = Math.Max(_plainTextsReserved, _plainTextsUsed + jsonLength + ScalarEncoding.Length);
        return _plainTexts[_plainTextsUsed..];
    }

    // The value's plaintext is in place: its query tokens, IV context, blob and place; the output counted.
    private void Commit(scoped in DocumentEncryption pass, int pathIndex, TypeMarker marker, int length, int valueEnd)
    {
        EncryptionPlan plan = pass.Plan;
        if (plan.GetQueryTokens(pathIndex) is { } tokenRule)
        {
            // As the value-by-value loop does: from the plaintext as the cell holds it, before the value counts as written.
            QueryTokens.ComputeFromPlainText(pass.Key, tokenRule, marker, _plainTexts.Slice(_plainTextsUsed, length), StreamEncryptor.TokensOf(plan, pathIndex, pass.Tokens));
        }

        int cellLength = pass.Key.GetEncryptByteCount(length);
        ReadOnlySpan<byte> prefix = plan.GetDeterministicPrefix(pathIndex);
        int contextOffset = _contextsUsed;
        if (!prefix.IsEmpty)
        {
            // prefix ‖ marker, as EncryptedValueCodec binds a deterministic IV.
            prefix.CopyTo(_contexts[contextOffset..]);
            _contexts[contextOffset + prefix.Length] = (byte)marker;
            _contextsUsed += prefix.Length + 1;
        }

        int blobOffset = _blobsUsed;
        _blobs[blobOffset] = (byte)marker;
        _values[_count] = new AeadBatchValue(_plainTextsUsed, length, blobOffset + 1, !prefix.IsEmpty, contextOffset, prefix.Length + 1);
        _places[_count] = new Place(_valueStart, valueEnd, blobOffset, 1 + cellLength);
        _count++;
        _plainTextsUsed += length;
        _blobsUsed += 1 + cellLength;
        Written += Base64.GetMaxEncodedToUtf8Length(1 + cellLength) + 2;
        Cursor = valueEnd;
    }

    // What the value-by-value loop hands the key for the value at the reader, by the same mapping (PlainValue).
    private static int FromReader(ref Utf8JsonReader reader, ReadOnlySpan<byte> input, scoped in DocumentEncryption pass, int pathIndex, Span<byte> plainText, out TypeMarker marker)
    {
        Span<byte> scalar = stackalloc byte[ScalarEncoding.Length];
        EncryptionPlan plan = pass.Plan;
        marker = PlainValue.Classify(ref reader, scalar, !plan.GetDeterministicPrefix(pathIndex).IsEmpty, plan.GetPath(pathIndex), plan.DataEncryptionKeyId);
        switch (marker)
        {
            case TypeMarker.String:
                return reader.ValueIsEscaped ? JsonStringUnescaper.CopyString(ref reader, plainText) : Copy(reader.ValueSpan, plainText);

            case TypeMarker.Object:
            case TypeMarker.Array:
                int start = (int)reader.TokenStartIndex;
                JsonDepth.SkipContainer(ref reader, pass.MaxDepth, 0);
                return CopyCompact(input[start..(int)reader.BytesConsumed], plainText);

            default:
                return Copy(scalar, plainText);
        }
    }

    // A container's plaintext: its compact JSON text.
    private static int CopyCompact(ReadOnlySpan<byte> json, Span<byte> destination) =>
        JsonWhitespace.ContainsWhitespace(json) ? JsonWhitespace.Compact(json, destination) : Copy(json, destination);

    private static int Copy(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        source.CopyTo(destination);
        return source.Length;
    }

    /// <summary>Where one gathered value is in the document and where its blob is.</summary>
    internal readonly record struct Place(int ValueStart, int ValueEnd, int BlobOffset, int BlobLength);
}

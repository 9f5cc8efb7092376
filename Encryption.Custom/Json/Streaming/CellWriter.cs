using System.Buffers;
using System.Text.Json;
using Encryption.Custom.Crypto.Binding;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// The records loop's sink that encrypts each value at once: the verbatim bytes since the last value, then the value
/// as its cell (with its query tokens, and its step in the document commitment's chain). The reference the batch
/// (<see cref="ValueBatch"/>) must match, and the path for keys and cells the batch does not take.
/// </summary>
internal ref struct CellWriter : IValueSink
{
    private readonly ReadOnlySpan<byte> _document;
    private CommitmentChain _chain;

    /// <param name="document">The whole document.</param>
    public CellWriter(ReadOnlySpan<byte> document)
    {
        _document = document;
    }

    /// <inheritdoc/>
    public int Cursor { get; private set; }

    /// <inheritdoc/>
    public long Written { get; private set; }

    /// <inheritdoc/>
    public int Offset { get; set; }

    /// <inheritdoc/>
    public readonly CommitmentChain Chain => _chain;

    /// <inheritdoc/>
    public void TakeTopLevel(scoped in DocumentEncryption pass, in PropertyRecord property, int pathIndex)
    {
        Gap(pass.Output, property.ValueStart);
        Written += StreamEncryptor.EncryptScannedValue(pass, in property, pathIndex, ref _chain);
        Cursor = property.ValueEnd;
    }

    /// <inheritdoc/>
    public void Take(ref Utf8JsonReader reader, scoped in DocumentEncryption pass, int rule)
    {
        Gap(pass.Output, Offset + (int)reader.TokenStartIndex);
        var cell = new CellTarget(pass.Plan, rule, pass.Binding, pass.Plan.GetQueryTokens(rule), StreamEncryptor.TokensOf(pass.Plan, rule, pass.Tokens));
        Written += StreamEncryptor.EncryptValue(ref reader, pass.Document, pass.Output, pass.Key, cell, pass.MaxDepth, ref _chain);
        Cursor = Offset + (int)reader.BytesConsumed;
    }

    /// <inheritdoc/>
    public readonly void Finish(scoped in DocumentEncryption pass)
    {
        // Every cell is written as it is taken.
    }

    // The verbatim bytes from the last value up to the next one.
    private void Gap(IBufferWriter<byte> output, int start)
    {
        output.Write(_document[Cursor..start]);
        Written += start - Cursor;
        Cursor = start;
    }
}

/// <summary>
/// What the records loop (<c>StreamEncryptor.Records.cs</c>) does with each value it encrypts, top-level or picked by
/// a nested selector: <see cref="CellWriter"/> writes it at once, <see cref="ValueBatch"/> gathers it for a batch. Both
/// count the output the same way, so the loop makes the same output-length checks at the same places.
/// </summary>
internal interface IValueSink : ISelectedValueSink
{
    /// <summary>The first document byte after the last value taken (0 before the first).</summary>
    int Cursor { get; }

    /// <summary>The output bytes up to <see cref="Cursor"/>: written, or to be written by <see cref="Finish"/>.</summary>
    long Written { get; }

    /// <summary>Where the value a nested walk is on starts in the document (the walk's reader has the value's own offsets).</summary>
    int Offset { set; }

    /// <summary>The document commitment's chain over the cells written (empty unless the plan commits).</summary>
    CommitmentChain Chain { get; }

    /// <summary>Takes a top-level value the scan recorded.</summary>
    void TakeTopLevel(scoped in DocumentEncryption pass, in PropertyRecord property, int pathIndex);

    /// <summary>Writes whatever is still gathered: the output then holds the document up to <see cref="Cursor"/>.</summary>
    void Finish(scoped in DocumentEncryption pass);
}

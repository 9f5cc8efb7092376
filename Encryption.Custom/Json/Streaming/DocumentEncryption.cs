using System.Buffers;
using System.Diagnostics;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// What one document's encryption carries unchanged from value to value (the loop over the records, the batched encrypt and
/// the nested selectors' walk): set once in <see cref="StreamEncryptor.Encrypt"/>, passed by <c>in</c>, on the stack.
/// </summary>
/// <remarks>
/// What changes per value travels beside it: the per-path flags (often on the stack, a scoped span), the write
/// cursor and the commitment chain (by ref). A ref struct because the document is a span.
/// </remarks>
internal readonly ref struct DocumentEncryption
{
    /// <summary>The plaintext document (the reader's input).</summary>
    public required ReadOnlySpan<byte> Document { get; init; }

    /// <summary>Receives the encrypted document.</summary>
    public required IBufferWriter<byte> Output { get; init; }

    /// <summary>The leased key.</summary>
    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    public required DataEncryptionKey Key { get; init; }

    /// <summary>What to encrypt.</summary>
    public required EncryptionPlan Plan { get; init; }

    /// <summary>The document's binding, or the default value when the plan does not bind.</summary>
    public CellBinding Binding { get; init; }

    /// <summary>The depth limit.</summary>
    public required int MaxDepth { get; init; }

    /// <summary>The longest output allowed (the limit decryption applies to its input).</summary>
    public required int MaxLength { get; init; }

    /// <summary>The document's query tokens, every token path's slice (null when the plan declares none).</summary>
    public byte[]? Tokens { get; init; }
}

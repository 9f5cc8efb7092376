using System.Buffers;
using System.Runtime.CompilerServices;
using System.Text.Json;
using Encryption.Custom.Crypto.Binding;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.Tokens;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// Encrypts one document in a single pass: the reader walks the top level, every byte outside the encrypted
/// values is copied verbatim, each encrypted value is written as <c>"base64(marker ‖ cell)"</c> straight into the
/// output, and <c>_ei</c> goes in front of the root's closing brace.
/// </summary>
/// <remarks>
/// The root's closing brace is written only after everything succeeded: on failure the output holds an
/// incomplete prefix that must be discarded.
/// </remarks>
internal static partial class StreamEncryptor
{
    // Per path: not seen yet, encrypted, or seen with a null value (kept, not encrypted).
    private const byte NotSeen = 0;
    private const byte Encrypted = EncryptionPlan.EncryptedFlag;
    private const byte SeenNull = 2;

    /// <param name="document">The plaintext document.</param>
    /// <param name="output">Receives the encrypted document.</param>
    /// <param name="key">The key.</param>
    /// <param name="plan">What to encrypt.</param>
    /// <param name="maxDepth">The depth limit.</param>
    /// <param name="maxLength">The longest output allowed: the limit decryption applies to its input, so that what
    /// is encrypted can always be decrypted with the same limits.</param>
    /// <param name="allowFastPath">False to walk the document with the reader only: the reference the fast path
    /// (<see cref="TryEncryptScanned"/>) must match, for tests.</param>
    public static void Encrypt(ReadOnlySpan<byte> document, IBufferWriter<byte> output, DataEncryptionKey key, EncryptionPlan plan, int maxDepth, int maxLength, bool allowFastPath = true)
    {
        if (plan.PathCount == 0)
        {
            // Nothing to encrypt: the document is returned as it is (as Microsoft's package does).
            output.Write(document);
            return;
        }

        Utf8Validation.ThrowIfInvalid(document);
        byte[]? rentedFlags = null;
        byte[]? rentedTokens = null;
        Span<byte> encrypted = plan.PathCount <= ScratchBuffer.StackLimit
            ? stackalloc byte[ScratchBuffer.StackLimit]
            : (rentedFlags = ArrayPool<byte>.Shared.Rent(plan.PathCount));
        encrypted = encrypted[..plan.PathCount];
        encrypted.Clear();
        try
        {
            // A bound plan needs the document's id and partition key before the first value (BindingScan).
            CellBinding binding = plan.Binding is { } target
                ? BindingScan.Compute(document, target, plan.EncryptionAlgorithm, plan.DataEncryptionKeyId, maxDepth, new StoredKeyTokens(key, plan, maxDepth))
                : default;
            rentedTokens = plan.HasQueryTokens ? ArrayPool<byte>.Shared.Rent(plan.QueryTokenBytes) : null;
            var pass = new DocumentEncryption
            {
                Document = document,
                Output = output,
                Key = key,
                Plan = plan,
                Binding = binding,
                MaxDepth = maxDepth,
                MaxLength = maxLength,
                Tokens = rentedTokens,
            };

            // A committing plan takes the reader walk: the scanned fast path would need the chain threaded through it
            // too, and the walk already costs nothing per document beyond the chain itself (kept on the stack).
            // So does a plan with query tokens: the tokens are computed beside each cell and written before the envelope.
            if (allowFastPath && plan.NestedSelectors.ChildCount == 0 && !plan.Commits && !plan.HasQueryTokens && TryEncryptScanned(pass, encrypted))
            {
                return;
            }

            var reader = new Utf8JsonReader(document, JsonDepth.ReaderOptions(maxDepth, 0));
            EncryptDocument(ref reader, pass, encrypted);
        }
        catch (JsonException exception)
        {
            JsonErrors.ThrowMalformed(exception);
        }
        finally
        {
            if (rentedFlags is not null)
            {
                ArrayPool<byte>.Shared.Return(rentedFlags);
            }

            if (rentedTokens is not null)
            {
                ArrayPool<byte>.Shared.Return(rentedTokens);
            }
        }
    }

    private static void EncryptDocument(ref Utf8JsonReader reader, scoped in DocumentEncryption pass, scoped Span<byte> encrypted)
    {
        ReadOnlySpan<byte> document = pass.Document;
        IBufferWriter<byte> output = pass.Output;
        EncryptionPlan plan = pass.Plan;
        int maxDepth = pass.MaxDepth;
        int maxLength = pass.MaxLength;
        byte[]? tokens = pass.Tokens;
        // The document commitment's chain (wire-format.md "Document commitment"): one SHA-256 step per cell, in the
        // order cells are written, which is document order. On the stack; unused unless the plan commits.
        var chain = default(CommitmentChain);
        if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
        {
            JsonErrors.ThrowRootNotObject();
        }

        // Bytes written so far: with what is left of the input (values only grow), a lower bound of the output.
        long written = 0;
        int cursor = 0;
        int lastValueEnd = (int)reader.BytesConsumed;
        bool hasProperties = false;

        // The top-level names nested selectors start at (at most SelectorRules.MaxNestedSelectors): one bit each.
        ulong nestedSeen = 0;
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            hasProperties = true;
            int pathIndex = FindPath(ref reader, plan, out int nestedRoot);
            if (pathIndex < 0 && nestedRoot < 0 && IsReservedName(ref reader, plan))
            {
                JsonErrors.ThrowAlreadyEncrypted();
            }

            // The scanned fast path never runs with query tokens, so only this walk meets a '_q' it would overwrite.
            if (pathIndex < 0 && nestedRoot < 0 && plan.HasQueryTokens && reader.ValueTextEquals(QueryTokenRule.MemberNameUtf8))
            {
                JsonErrors.ThrowReservedQueryTokens();
            }

            reader.Read();
            if (nestedRoot >= 0)
            {
                // A top-level value some nested selectors start at: walk it, encrypting what they pick.
                if ((nestedSeen & (1UL << nestedRoot)) != 0)
                {
                    JsonErrors.ThrowDuplicateProperty(plan.GetPath(plan.NestedSelectors.GetChild(nestedRoot).FirstRuleIndex));
                }

                nestedSeen |= 1UL << nestedRoot;
                written += NestedEncryptor.Walk(ref reader, pass, plan.NestedSelectors.GetChild(nestedRoot), encrypted, ref cursor, ref chain);
                lastValueEnd = (int)reader.BytesConsumed;
                CheckOutputLength(written + (document.Length - cursor), maxLength);
                continue;
            }

            if (pathIndex >= 0)
            {
                // A repeated name is refused even next to a null: which one counts would depend on the reader.
                if (encrypted[pathIndex] != NotSeen)
                {
                    JsonErrors.ThrowDuplicateProperty(plan.GetPath(pathIndex));
                }

                encrypted[pathIndex] = reader.TokenType == JsonTokenType.Null ? SeenNull : Encrypted;
            }

            if (pathIndex < 0 || reader.TokenType == JsonTokenType.Null)
            {
                JsonDepth.SkipValue(ref reader, maxDepth, 0);
                lastValueEnd = (int)reader.BytesConsumed;
                continue;
            }

            output.Write(document[cursor..(int)reader.TokenStartIndex]);
            written += (int)reader.TokenStartIndex - cursor;
            written += EncryptValue(ref reader, document, pass, pathIndex, ref chain, TokensOf(plan, pathIndex, tokens));
            cursor = lastValueEnd = (int)reader.BytesConsumed;
            CheckOutputLength(written + (document.Length - cursor), maxLength);
        }

        // The root is closed; anything after it other than whitespace makes the next read throw.
        reader.Read();

        int tokenLength = tokens is null ? 0 : plan.QueryTokenMemberLength;
        CheckOutputLength(written + (document.Length - cursor) + (hasProperties ? 1 : 0) + tokenLength + plan.GetEnvelopeLength(encrypted), maxLength);
        output.Write(document[cursor..lastValueEnd]);
        if (hasProperties)
        {
            output.Write(","u8);
        }

        if (tokens is not null)
        {
            WriteQueryTokens(output, plan, encrypted, tokens);
        }

        if (plan.Commits)
        {
            WriteCommittedEnvelope(pass, encrypted, chain);
        }
        else
        {
            plan.WriteEnvelope(output, encrypted);
        }

        output.Write(document[lastValueEnd..]);
    }

    // The anchor holds the commitment over D, the paths _ep lists and the chain of the cells just written.
    private static void WriteCommittedEnvelope(scoped in DocumentEncryption pass, scoped ReadOnlySpan<byte> encrypted, in CommitmentChain chain)
    {
        EncryptionPlan plan = pass.Plan;
        int blockLength = plan.GetSelectorBlockLength(encrypted);
        byte[]? rented = null;
        Span<byte> block = blockLength <= ScratchBuffer.StackLimit
            ? stackalloc byte[ScratchBuffer.StackLimit]
            : (rented = ArrayPool<byte>.Shared.Rent(blockLength));
        try
        {
            block = block[..plan.WriteSelectorBlock(encrypted, block)];
            Span<byte> commitment = stackalloc byte[DocumentCommitment.Size];
            pass.Key.ComputeCommitmentLeased(pass.Binding.DocumentDigest, block, chain, commitment);
            plan.WriteEnvelope(pass.Output, encrypted, commitment);
        }
        finally
        {
            if (rented is not null)
            {
                ArrayPool<byte>.Shared.Return(rented);
            }
        }
    }

    // Where the tokens of one path go: its slice of the document's token buffer (empty for a path without tokens).
    internal static Span<byte> TokensOf(EncryptionPlan plan, int pathIndex, byte[]? tokens) =>
        tokens is not null && plan.GetQueryTokens(pathIndex) is { } rule
            ? tokens.AsSpan(plan.GetQueryTokenOffset(pathIndex), rule.TokenCount * rule.TokenLength)
            : default;

    // "_q":{"<path>":["<token>",...],...}, with a member per token path whose value was encrypted (docs/wire-format.md).
    private static void WriteQueryTokens(IBufferWriter<byte> output, EncryptionPlan plan, scoped ReadOnlySpan<byte> encrypted, byte[] tokens)
    {
        Span<byte> span = output.GetSpan(plan.QueryTokenMemberLength);
        "\"_q\":{"u8.CopyTo(span);
        int position = 6;
        bool first = true;
        // Top-level paths, then nested selectors: the plan's order, which the Newtonsoft processor writes too.
        for (int i = 0; i < plan.PathCount; i++)
        {
            if (encrypted[i] != Encrypted || plan.GetQueryTokens(i) is not { } rule)
            {
                continue;
            }

            if (!first)
            {
                span[position++] = (byte)',';
            }

            first = false;
            rule.QuotedPath.CopyTo(span[position..]);
            position += rule.QuotedPath.Length;
            span[position++] = (byte)':';
            position += QueryTokens.WriteArray(tokens.AsSpan(plan.GetQueryTokenOffset(i), rule.TokenCount * rule.TokenLength), rule.TokenLength, span[position..]);
        }

        span[position++] = (byte)'}';
        span[position++] = (byte)',';
        output.Advance(position);
    }

    private static void CheckOutputLength(long projected, int maxLength)
    {
        if (projected > maxLength)
        {
            JsonErrors.ThrowEncryptedDocumentTooLarge(maxLength);
        }
    }

    // An exact top-level match, or -1 with the nested selectors' root it starts (or -1) after making sure no path
    // matches only when case is ignored.
    private static int FindPath(ref Utf8JsonReader reader, EncryptionPlan plan, out int nestedRoot) =>
        reader.ValueIsEscaped ? FindEscapedPath(ref reader, plan, out nestedRoot) : Match(reader.ValueSpan, plan, out nestedRoot);

    private static int Match(ReadOnlySpan<byte> name, EncryptionPlan plan, out int nestedRoot)
    {
        int index = plan.FindPath(name);
        nestedRoot = -1;
        if (index < 0)
        {
            nestedRoot = plan.NestedSelectors.FindChild(name);
            if (nestedRoot < 0)
            {
                plan.ThrowIfCaseVariant(name);
            }
        }

        return index;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int FindEscapedPath(ref Utf8JsonReader reader, EncryptionPlan plan, out int nestedRoot)
    {
        (int index, nestedRoot) = ScratchBuffer.WithUnescaped(ref reader, plan, static (name, plan) => (Match(name, plan, out int root), root));
        return index;
    }

    // _ei, and in the extended format also its anchor _ex: a document that holds either already has metadata.
    private static bool IsReservedName(ref Utf8JsonReader reader, EncryptionPlan plan) =>
        reader.ValueTextEquals(EncryptionEnvelope.PropertyNameUtf8)
        || (plan.IsExtendedFormat && reader.ValueTextEquals(EncryptionEnvelope.AnchorNameUtf8));

    // The same rule for a name that is already unescaped.
    private static bool IsReservedName(ReadOnlySpan<byte> name, EncryptionPlan plan) =>
        name.SequenceEqual(EncryptionEnvelope.PropertyNameUtf8)
        || (plan.IsExtendedFormat && name.SequenceEqual(EncryptionEnvelope.AnchorNameUtf8));
}

using System.Buffers;
using System.Text.Json;
using Encryption.Custom.Crypto.Binding;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.Tokens;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// Encrypts one document: the one document reader (<see cref="DocumentScanner"/>: its fast scan, or
/// <see cref="Utf8JsonReader"/> when the scan declines) records where every top-level property lies, the whole
/// document judged well-formed before anything is written; then one loop over the records copies every byte outside
/// the encrypted values verbatim, writes each encrypted value as <c>"base64(marker ‖ cell)"</c> straight into the
/// output (descending into a value where nested selectors start), and puts <c>_q</c> and <c>_ei</c> in front of the
/// root's closing brace. With the library's own keys the values are gathered and encrypted as one batch instead
/// (<c>StreamEncryptor.Batched.cs</c>), writing the same bytes.
/// </summary>
/// <remarks>
/// The root's closing brace is written only after everything succeeded: on failure the output holds an
/// incomplete prefix that must be discarded.
/// </remarks>
internal static partial class StreamEncryptor
{
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
    /// <param name="reference">True for the reference the fast scan and the batched encrypt must match, for tests:
    /// the document read by <see cref="Utf8JsonReader"/> only, and its values encrypted one by one.</param>
    public static void Encrypt(ReadOnlySpan<byte> document, IBufferWriter<byte> output, DataEncryptionKey key, EncryptionPlan plan, int maxDepth, int maxLength, bool reference = false)
    {
        if (plan.PathCount == 0)
        {
            // Nothing to encrypt: the document is returned as it is (as Microsoft's package does).
            output.Write(document);
            return;
        }

        byte[]? rentedFlags = null;
        byte[]? rentedTokens = null;
        Span<byte> encrypted = plan.PathCount <= ScratchBuffer.StackLimit
            ? stackalloc byte[ScratchBuffer.StackLimit]
            : (rentedFlags = ArrayPool<byte>.Shared.Rent(plan.PathCount));
        encrypted = encrypted[..plan.PathCount];
        encrypted.Clear();
        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            if (reference)
            {
                Utf8Validation.ThrowIfInvalid(document);
                DocumentScanner.ScanDocumentWithReader(document, scan, maxDepth);
            }
            else
            {
                DocumentScanner.ScanDocument(document, scan, maxDepth);
            }

            // A bound plan needs the document's id and partition key before the first value (BindingScan).
            CellBinding binding = plan.Binding is { } target
                ? BindingScan.Compute(document, scan, scan.Documents[0], target, (plan.EncryptionAlgorithm, plan.DataEncryptionKeyId), new StoredKeyTokens(key, plan, maxDepth))
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

            if (!reference && CanEncryptBatched(pass))
            {
                EncryptScannedBatched(pass, encrypted, scan);
            }
            else
            {
                var writer = new CellWriter(document);
                EncryptRecords(pass, encrypted, scan, ref writer);
            }
        }
        catch (JsonException exception)
        {
            JsonErrors.ThrowMalformed(exception);
        }
        finally
        {
            DecryptionScan.Return(scan);
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

    // After the last encrypted value: the rest of the properties, the query tokens, the envelope (committed when the
    // plan commits), and the root's closing brace. written counts the output up to cursor.
    private static void WriteTail(scoped in DocumentEncryption pass, scoped ReadOnlySpan<byte> encrypted, bool hasProperties, int cursor, int lastValueEnd, long written, in CommitmentChain chain)
    {
        ReadOnlySpan<byte> document = pass.Document;
        IBufferWriter<byte> output = pass.Output;
        EncryptionPlan plan = pass.Plan;
        byte[]? tokens = pass.Tokens;
        int tokenLength = tokens is null ? 0 : plan.QueryTokenMemberLength;
        CheckOutputLength(written + (document.Length - cursor) + (hasProperties ? 1 : 0) + tokenLength + plan.GetEnvelopeLength(encrypted), pass.MaxLength);
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

    // _ei, and in the extended format also its anchor _ex: a document that holds either already has metadata.
    private static bool IsReservedName(ReadOnlySpan<byte> name, EncryptionPlan plan) =>
        name.SequenceEqual(EncryptionEnvelope.PropertyNameUtf8)
        || (plan.IsExtendedFormat && name.SequenceEqual(EncryptionEnvelope.AnchorNameUtf8));
}

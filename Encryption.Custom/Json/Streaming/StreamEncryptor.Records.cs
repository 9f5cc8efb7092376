using System.Text.Json;
using Encryption.Custom.Crypto.Binding;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.Tokens;
using Encryption.Custom.Json.Values;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

// The one loop over a document's top-level records (DocumentScanner: the fast scan or the reader), for every plan:
// top-level paths, nested selectors (a reader over the one value they start at), query tokens and the document
// commitment. Only the values to encrypt are looked at again; a sink writes each at once (CellWriter) or gathers it
// for a batch (ValueBatch).
internal static partial class StreamEncryptor
{
    /// <summary>
    /// Encrypts a scanned document: every check, error and output-length check in document order, each value handed
    /// to <paramref name="sink"/> (written at once, or gathered for a batch), then the tail.
    /// </summary>
    private static void EncryptRecords<TSink>(scoped in DocumentEncryption pass, scoped Span<byte> encrypted, DecryptionScan scan, ref TSink sink)
        where TSink : IValueSink, allows ref struct
    {
        ReadOnlySpan<byte> document = pass.Document;
        EncryptionPlan plan = pass.Plan;
        ref DocumentRecord root = ref scan.Documents[0];
        int lastValueEnd = root.Start + 1;

        // The top-level names nested selectors start at (at most SelectorRules.MaxNestedSelectors): one bit each.
        ulong nestedSeen = 0;
        int end = root.FirstProperty + root.PropertyCount;
        for (int i = root.FirstProperty; i < end; i++)
        {
            ref PropertyRecord property = ref scan.Properties[i];
            int pathIndex = ClassifyScanned(document, scan, plan, in property, encrypted, out int nestedRoot);
            lastValueEnd = property.ValueEnd;
            if (nestedRoot >= 0)
            {
                if ((nestedSeen & (1UL << nestedRoot)) != 0)
                {
                    JsonErrors.ThrowDuplicateProperty(plan.GetPath(plan.NestedSelectors.GetChild(nestedRoot).FirstRuleIndex));
                }

                nestedSeen |= 1UL << nestedRoot;
                WalkNested(pass, in property, plan.NestedSelectors.GetChild(nestedRoot), encrypted, ref sink);
            }
            else if (pathIndex >= 0)
            {
                sink.TakeTopLevel(pass, in property, pathIndex);
            }
            else
            {
                continue;
            }

            CheckOutputLength(sink.Written + (document.Length - sink.Cursor), pass.MaxLength);
        }

        sink.Finish(pass);
        WriteTail(pass, encrypted, root.PropertyCount > 0, sink.Cursor, lastValueEnd, sink.Written, sink.Chain);
    }

    // A top-level value nested selectors start at, walked by a reader over that value alone (the scan judged the
    // whole document, so the reader only finds the selected values); the sink takes each one.
    private static void WalkNested<TSink>(scoped in DocumentEncryption pass, in PropertyRecord property, SelectorNode node, scoped Span<byte> encrypted, ref TSink sink)
        where TSink : IValueSink, allows ref struct
    {
        DocumentEncryption inner = ValuePass(pass, property.ValueStart, property.ValueEnd);
        var reader = new Utf8JsonReader(inner.Document, JsonDepth.ReaderOptions(inner.MaxDepth, 0));
        reader.Read();
        sink.Offset = property.ValueStart;
        NestedEncryptor.Walk(ref reader, inner, node, encrypted, ref sink);
    }

    // The document's encryption over one top-level value: its offsets are the value's own, and one level of depth
    // is already spent on the root.
    private static DocumentEncryption ValuePass(scoped in DocumentEncryption pass, int valueStart, int valueEnd) => new()
    {
        Document = pass.Document[valueStart..valueEnd],
        Output = pass.Output,
        Key = pass.Key,
        Plan = pass.Plan,
        Binding = pass.Binding,
        MaxDepth = pass.MaxDepth - 1,
        MaxLength = pass.MaxLength,
        Tokens = pass.Tokens,
    };

    // Every value is classified from the scan's bytes by the one mapping from JSON value to plaintext (ScannedValue);
    // an escaped string is unescaped from its token with the reader's rules (JsonStringUnescaper).
    internal static int EncryptScannedValue(scoped in DocumentEncryption pass, in PropertyRecord property, int pathIndex, ref CommitmentChain chain)
    {
        ReadOnlySpan<byte> document = pass.Document;
        var cell = new CellTarget(pass.Plan, pathIndex, pass.Binding, pass.Plan.GetQueryTokens(pathIndex), TokensOf(pass.Plan, pathIndex, pass.Tokens));
        Span<byte> scalar = stackalloc byte[ScalarEncoding.Length];
        TypeMarker marker = ScannedValue.Classify(document, property, pass.Plan, pathIndex, scalar, out ReadOnlySpan<byte> text);
        return marker switch
        {
            TypeMarker.String when property.ValueEscaped => EncryptEscapedString(document[property.ValueStart..property.ValueEnd], pass.Output, pass.Key, cell, ref chain),
            TypeMarker.String => WriteEncrypted(pass.Output, pass.Key, marker, text, cell, ref chain),
            TypeMarker.Object or TypeMarker.Array when property.ValueCompact => WriteEncrypted(pass.Output, pass.Key, marker, text, cell, ref chain),
            TypeMarker.Object or TypeMarker.Array => EncryptContainer(text, pass.Output, pass.Key, marker, cell, ref chain),
            _ => WriteEncrypted(pass.Output, pass.Key, marker, scalar, cell, ref chain),
        };
    }

    // What a scanned top-level property is to the plan: the index of the path whose value is to be encrypted (its flag
    // set, a repeat refused), or -1 for a value copied as it is (no path, or null), with the nested selectors' root it
    // starts (or -1). The per-value loop and the batched gather classify through this one method, so they refuse the
    // same inputs with the same errors: a case variant of a path, the metadata's names, a repeated path.
    private static int ClassifyScanned(ReadOnlySpan<byte> document, DecryptionScan scan, EncryptionPlan plan, in PropertyRecord property, scoped Span<byte> encrypted, out int nestedRoot)
    {
        ReadOnlySpan<byte> name = scan.GetName(document, property);
        int pathIndex = Match(name, plan, out nestedRoot);
        if (pathIndex < 0)
        {
            if (nestedRoot < 0 && IsReservedName(name, plan))
            {
                JsonErrors.ThrowAlreadyEncrypted();
            }

            if (nestedRoot < 0 && plan.HasQueryTokens && name.SequenceEqual(QueryTokenRule.MemberNameUtf8))
            {
                JsonErrors.ThrowReservedQueryTokens();
            }

            return -1;
        }

        if (encrypted[pathIndex] != NotSeen)
        {
            JsonErrors.ThrowDuplicateProperty(plan.GetPath(pathIndex));
        }

        encrypted[pathIndex] = property.ValueType == JsonTokenType.Null ? SeenNull : Encrypted;
        return property.ValueType == JsonTokenType.Null ? -1 : pathIndex;
    }
}

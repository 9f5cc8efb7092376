using System.Text.Json;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// The <c>_ep</c> half of <see cref="EnvelopeReader"/>: reading the list (format 101: the anchor first, nested
/// selectors apart), checking the format 101 anchor, and matching listed paths to the document's properties.
/// </summary>
internal static partial class EnvelopeReader
{
    private static void ReadPaths(ref Utf8JsonReader reader, DecryptionScan scan, bool extended)
    {
        if (reader.TokenType == JsonTokenType.Null && !extended)
        {
            return;
        }

        if (reader.TokenType != JsonTokenType.StartArray)
        {
            JsonErrors.ThrowMalformedEnvelope("'_ep' must be an array of paths.");
        }

        bool first = true;
        while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
        {
            if (reader.TokenType != JsonTokenType.String)
            {
                JsonErrors.ThrowMalformedEnvelope("'_ep' must be an array of paths.");
            }

            Span<byte> space = scan.GetNameSpace(reader.ValueSpan.Length, out int offset);
            int length = JsonStringUnescaper.CopyString(ref reader, space);
            if (extended && first)
            {
                // The anchor first, so that readers of format 3 meet it before any nested selector (and fail on it).
                if (!space[..length].SequenceEqual("/_ex"u8))
                {
                    JsonErrors.ThrowMalformedEnvelope("format version 101 must list the anchor '/_ex' first in '_ep'.");
                }

                first = false;
                continue;
            }

            if (extended && length > 1 && space[0] == (byte)'/' && space[1..length].Contains((byte)'/'))
            {
                // A nested selector: compiled with the others once the list is read.
                scan.AddSelector(space[..length]);
                continue;
            }

            // "/name": a top-level property; format 3 never lists anything else.
            if (length < 2 || space[0] != (byte)'/' || space[1..length].Contains((byte)'/'))
            {
                JsonErrors.ThrowMalformedEnvelope("'_ep' must list top-level paths such as '/name'.");
            }

            ReadOnlySpan<byte> name = space[1..length];
            if (scan.PathTable.Add(name) < 0)
            {
                JsonErrors.ThrowMalformedEnvelope("'_ep' lists a path more than once.");
            }

            if (extended && space[..length].SequenceEqual("/_ex"u8))
            {
                JsonErrors.ThrowMalformedEnvelope("'_ep' lists the anchor '/_ex' more than once.");
            }

            scan.CommitName(length);
            ref PathRecord path = ref scan.AddPath();
            path.NameOffset = offset + 1;
            path.NameLength = length - 1;
            path.PropertyIndex = -1;
            path.Seen = false;
        }

        if (extended && first)
        {
            JsonErrors.ThrowMalformedEnvelope("format version 101 must list the anchor '/_ex' first in '_ep'.");
        }
    }

    // Format 101: the top-level _ex must be exactly the anchor this library writes; with 'commit', the tag and version
    // followed by a commitment (verified by the decryption, not here).
    private static bool IsAnchor(ReadOnlySpan<byte> base64, bool committed, Span<byte> commitment) =>
        committed ? ExtendedEnvelope.TryReadCommittedAnchor(base64, commitment) : ExtendedEnvelope.IsAnchor(base64);

    private static void CheckAnchor(ReadOnlySpan<byte> input, DecryptionScan scan, in DocumentRecord document)
    {
        if (document.AnchorProperty < 0)
        {
            JsonErrors.ThrowMalformedEnvelope("the anchor property '_ex' that format version 101 requires is missing.");
        }

        if (document.DuplicateAnchor)
        {
            JsonErrors.ThrowMalformedEnvelope("the anchor property '_ex' appears more than once.");
        }

        ref readonly PropertyRecord anchor = ref scan.Properties[document.AnchorProperty];
        ReadOnlySpan<byte> token = input[anchor.ValueStart..anchor.ValueEnd];
        Span<byte> unescaped = stackalloc byte[128];
        Span<byte> commitment = stackalloc byte[ExtendedEnvelope.CommitmentLength];
        bool valid = anchor.ValueType == JsonTokenType.String
            && (!anchor.ValueEscaped
                ? IsAnchor(token[1..^1], document.Committed, commitment)
                : token.Length <= unescaped.Length && IsAnchor(unescaped[..JsonStringUnescaper.Unescape(token, unescaped)], document.Committed, commitment));
        if (!valid)
        {
            JsonErrors.ThrowMalformedEnvelope("the anchor property '_ex' does not hold the anchor value of format version 101.");
        }
    }

    private static void MatchPaths(ReadOnlySpan<byte> input, DecryptionScan scan, in DocumentRecord document)
    {
        SelectorNode? nested = document.Selectors?.Root;
        if (scan.PathCount == 0 && nested is null)
        {
            return;
        }

        // The top-level names nested selectors start at (at most SelectorRules.MaxNestedSelectors): one bit each.
        ulong nestedSeen = 0;
        PropertyRecord[] properties = scan.Properties;
        int end = document.FirstProperty + document.PropertyCount;
        for (int i = document.FirstProperty; i < end; i++)
        {
            ref PropertyRecord property = ref properties[i];

            // The envelope never matches a path.
            if (i == document.EnvelopeProperty)
            {
                continue;
            }

            ReadOnlySpan<byte> name = scan.GetName(input, property);
            int pathIndex = scan.PathTable.Find(name);
            if (pathIndex < 0)
            {
                int child = nested is null ? -1 : nested.FindChild(name);
                if (child >= 0)
                {
                    // A repeated name is refused, as for top-level paths.
                    if ((nestedSeen & (1UL << child)) != 0)
                    {
                        JsonErrors.ThrowDuplicateProperty(name);
                    }

                    nestedSeen |= 1UL << child;
                    property.NestedChild = child;
                }

                continue;
            }

            // A repeated name is refused even next to a null: which one counts would depend on the reader.
            ref PathRecord path = ref scan.Paths[pathIndex];
            if (path.Seen)
            {
                JsonErrors.ThrowDuplicateProperty(name);
            }

            path.Seen = true;

            // A null value is treated as absent (a patch may have cleared it).
            if (property.ValueType == JsonTokenType.Null)
            {
                continue;
            }

            if (property.ValueType != JsonTokenType.String)
            {
                JsonErrors.ThrowNotAnEncryptedString(name, document.KeyId!);
            }

            path.PropertyIndex = i;
            property.PathIndex = pathIndex;
        }
    }
}

using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Rules;

/// <summary>
/// The rules a path to encrypt (a selector) must follow, in one place for the processors' options and the container
/// policy (docs/policy.md, "Selectors"): a JSON Pointer without escapes, whose segments are property names or the
/// array wildcard <c>[]</c> ("every element"), within the depth and count limits, never naming a property the
/// service or this library owns.
/// </summary>
internal static class SelectorRules
{
    /// <summary>The most segments a selector may have (<c>[]</c> counts as one).</summary>
    /// <remarks>Deep enough for real documents (order → lines → items → price is 4), small enough that a walk's
    /// per-level state stays on the stack.</remarks>
    public const int MaxDepth = 8;

    /// <summary>The most nested selectors (more than one segment) one policy or options may list.</summary>
    /// <remarks>Top-level paths are not counted (they keep today's behaviour, without a limit). 64 lets a walk keep
    /// "already seen" for every child of one object in a single 64-bit mask.</remarks>
    public const int MaxNestedSelectors = 64;

    // Names the service sets on every document, and the ones this library keeps for its own metadata: a selector
    // starting at one of them would be overwritten by the service or would confuse a reader of the metadata.
    private static readonly HashSet<string> s_reservedTopLevelNames = new(StringComparer.Ordinal)
    {
        "id", "ttl", "_ei", "_ex", "_eq", "_rid", "_self", "_etag", "_attachments", "_ts", "_lsn",
    };

    /// <summary>Parses and validates <paramref name="text"/>.</summary>
    /// <exception cref="EncryptionException">The selector is invalid (<see cref="EncryptionErrorKind.InvalidOptions"/>, naming it and why).</exception>
    public static RulePath Parse(string? text)
    {
        if (!RulePath.TryParse(text, out RulePath? path, out string? reason))
        {
            JsonErrors.ThrowInvalidPath(text, reason!);
        }

        if (path!.HasEscapes)
        {
            // Azure Cosmos DB decodes ~0/~1 while Microsoft's package and _ep readers take names literally: the
            // two would name different properties, so a selector must not depend on which reading applies.
            JsonErrors.ThrowInvalidPath(text, "a path must not use JSON Pointer escapes (~0, ~1): readers differ on whether they are decoded.");
        }

        if (path.HasEmptySegment)
        {
            JsonErrors.ThrowInvalidPath(text, path.Depth == 1 ? "a path must be '/' followed by a property name." : "a segment is empty ('//' or a trailing '/').");
        }

        if (path.Depth > MaxDepth)
        {
            JsonErrors.ThrowInvalidPath(text, $"it has {path.Depth} segments; at most {MaxDepth} are allowed.");
        }

        if (path.PropertyName == RulePath.ArrayWildcard)
        {
            JsonErrors.ThrowInvalidPath(text, "a document is an object, so a path cannot start with the array wildcard '[]'.");
        }

        if (path.PropertyName == EncryptionEnvelope.PropertyName)
        {
            JsonErrors.ThrowInvalidPath(text, "'_ei' is reserved for the encryption metadata.");
        }

        if (path.PropertyName == EncryptionEnvelope.AnchorName)
        {
            JsonErrors.ThrowInvalidPath(text, $"'{EncryptionEnvelope.AnchorName}' is reserved for the format anchor.");
        }

        if (path.Depth > 1 && s_reservedTopLevelNames.Contains(path.PropertyName))
        {
            // Top-level paths keep the rules they always had (only /_ei and /_ex refused, above; /id only
            // deterministically and unbound, checked where the plan knows both: EncryptionPlan.Create).
            JsonErrors.ThrowInvalidPath(text, $"'{path.PropertyName}' is a name the service or this library owns; nothing under it can be encrypted.");
        }

        for (int i = 0; i < path.Depth; i++)
        {
            string segment = path.Segments[i];
            if (segment == RulePath.ArrayWildcard)
            {
                continue;
            }

            if (path.Depth > 1 && (segment.Contains('[', StringComparison.Ordinal) || segment.Contains(']', StringComparison.Ordinal)))
            {
                JsonErrors.ThrowInvalidPath(text, $"the segment '{segment}' holds '[' or ']': the array wildcard '[]' must be a whole segment.");
            }

            if (i > 0 && IsArrayIndex(segment))
            {
                JsonErrors.ThrowInvalidPath(text, $"the segment '{segment}' is an array index: use '[]' (every element); a selector cannot pick one element.");
            }

            if (!IsValidText(segment))
            {
                JsonErrors.ThrowInvalidPath(text, "it is not valid UTF-16 text.");
            }
        }

        return path;
    }

    /// <summary>Whether <paramref name="segment"/> is how JSON Pointer names an array element (digits, or <c>-</c> past the end).</summary>
    public static bool IsArrayIndex(string segment) =>
        segment == "-" || (segment.Length > 0 && segment.AsSpan().IndexOfAnyExceptInRange('0', '9') < 0);

    private static bool IsValidText(string value)
    {
        for (int i = 0; i < value.Length; i++)
        {
            if (char.IsHighSurrogate(value[i]) && i + 1 < value.Length && char.IsLowSurrogate(value[i + 1]))
            {
                i++;
            }
            else if (char.IsSurrogate(value[i]))
            {
                return false;
            }
        }

        return true;
    }
}

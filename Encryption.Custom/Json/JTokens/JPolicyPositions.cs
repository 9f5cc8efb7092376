using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Json.JTokens;

/// <summary>
/// The values of a parsed document at the positions a compiled policy encrypts that its metadata does not list: the
/// one walk behind the Newtonsoft processor's read check (<see cref="JPolicyCheck"/>) and its inspection
/// (<c>NewtonsoftDocumentInspector</c>). Names count when they equal a policy name ignoring case (a case variant is
/// never what the metadata lists); <c>null</c> values are skipped.
/// </summary>
internal static class JPolicyPositions
{
    /// <summary>The unlisted values in order: the top-level paths' first (document order), then the nested selectors'.</summary>
    public static IEnumerable<(JToken Value, PathRule Rule)> Unlisted(JObject document, JEnvelope? envelope, PolicyRuleSet rules)
    {
        bool extended = envelope is { Format: EnvelopeFormat.Extended };
        foreach (JProperty property in document.Properties())
        {
            if (property.Value.Type == JTokenType.Null || IsMetadata(property.Name, extended))
            {
                continue;
            }

            int i = rules.FindAtPath(property.Name);
            if (i < 0)
            {
                continue;
            }

            PathRule rule = rules[i];
            string listedAs = string.Equals(property.Name, rule.PropertyName, StringComparison.Ordinal) ? rule.Text : "/" + property.Name;
            if (envelope is { Format: EnvelopeFormat.PerProperty or EnvelopeFormat.Extended } && envelope.Paths.Contains(listedAs))
            {
                continue;
            }

            yield return (property.Value, rule);
        }

        SelectorNode policy = rules.Plan.NestedSelectors;
        if (policy.ChildCount == 0)
        {
            yield break;
        }

        foreach (JProperty property in document.Properties())
        {
            if (IsMetadata(property.Name, extended) || Match(policy, property.Name) is not { } next)
            {
                continue;
            }

            SelectorNode? listed = next.Exact && envelope?.Selectors?.Root is { } root ? Listed(root, property.Name) : null;
            foreach ((JToken Value, PathRule Rule) found in Walk(property.Value, next.Node, listed, rules))
            {
                yield return found;
            }
        }
    }

    private static IEnumerable<(JToken Value, PathRule Rule)> Walk(JToken value, SelectorNode policy, SelectorNode? listed, PolicyRuleSet rules)
    {
        if (policy.IsLeaf)
        {
            if (value.Type != JTokenType.Null && listed is not { IsLeaf: true })
            {
                yield return (value, rules[policy.RuleIndex]);
            }

            yield break;
        }

        if (value is JObject obj && policy.ChildCount > 0)
        {
            foreach (JProperty property in obj.Properties())
            {
                if (Match(policy, property.Name) is not { } next)
                {
                    continue;
                }

                // A case variant is never what the metadata lists: whatever it holds at a policy position counts.
                SelectorNode? listedNext = next.Exact && listed is not null ? Listed(listed, property.Name) : null;
                foreach ((JToken Value, PathRule Rule) found in Walk(property.Value, next.Node, listedNext, rules))
                {
                    yield return found;
                }
            }
        }
        else if (value is JArray array && policy.Elements is { } elements)
        {
            foreach (JToken element in array)
            {
                foreach ((JToken Value, PathRule Rule) found in Walk(element, elements, listed?.Elements, rules))
                {
                    yield return found;
                }
            }
        }
    }

    // The policy's child named `name`, exactly or else ignoring case.
    private static (SelectorNode Node, bool Exact)? Match(SelectorNode policy, string name)
    {
        int child = policy.FindChild(name);
        if (child >= 0)
        {
            return (policy.GetChild(child), true);
        }

        int variant = policy.FindChildIgnoringCase(name);
        return variant >= 0 ? (policy.GetChild(variant), false) : null;
    }

    private static SelectorNode? Listed(SelectorNode listed, string name) =>
        listed.FindChild(name) is int index && index >= 0 ? listed.GetChild(index) : null;

    private static bool IsMetadata(string name, bool extended) =>
        name == EncryptionEnvelope.PropertyName || (extended && name == EncryptionEnvelope.AnchorName);
}

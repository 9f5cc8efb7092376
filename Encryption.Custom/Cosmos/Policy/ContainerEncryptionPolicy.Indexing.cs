using System.Text;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom;

// The indexing policy that fits a container of this encryption policy (docs/queries.md "Indexing policy").
public sealed partial class ContainerEncryptionPolicy
{
    /// <summary>
    /// An indexing policy for a container of this encryption policy: every path indexed (the service's default),
    /// except the ciphertext of randomized paths (no query can use it: each value encrypts differently) and the
    /// encryption metadata <c>_ei</c> and <c>_ex</c>. Deterministic paths stay indexed for their equality queries, and
    /// the query tokens <c>_q</c> for range and prefix queries. Pass it to
    /// <see cref="ContainerProperties.IndexingPolicy"/> when creating or replacing the container.
    /// </summary>
    /// <returns>A new indexing policy (consistent, automatic) each call.</returns>
    public IndexingPolicy CreateIndexingPolicy()
    {
        var indexing = new IndexingPolicy { IndexingMode = IndexingMode.Consistent, Automatic = true };
        indexing.IncludedPaths.Add(new IncludedPath { Path = "/*" });
        EncryptionPlan plan = Plan;
        for (int i = 0; i < plan.PathCount; i++)
        {
            if (!plan.IsDeterministic(i))
            {
                indexing.ExcludedPaths.Add(new ExcludedPath { Path = IndexPath(plan.GetRulePath(i)) + "/?" });
            }
        }

        indexing.ExcludedPaths.Add(new ExcludedPath { Path = "/" + EncryptionEnvelope.PropertyName + "/*" });
        indexing.ExcludedPaths.Add(new ExcludedPath { Path = "/" + EncryptionEnvelope.AnchorName + "/?" });
        return indexing;
    }

    // A path in the indexing policy's syntax: "/a/b", "[]" for any array element, a name that is not a plain
    // identifier in double quotes (the service's rule for names with spaces, dashes and the like).
    private static string IndexPath(RulePath path)
    {
        var text = new StringBuilder();
        foreach (string segment in path.Segments)
        {
            text.Append('/');
            if (segment == RulePath.ArrayWildcard || IsPlainName(segment))
            {
                text.Append(segment);
            }
            else
            {
                text.Append('"').Append(segment.Replace("\\", "\\\\", StringComparison.Ordinal).Replace("\"", "\\\"", StringComparison.Ordinal)).Append('"');
            }
        }

        return text.ToString();
    }

    private static bool IsPlainName(string segment) =>
        segment.Length > 0 && (char.IsAsciiLetter(segment[0]) || segment[0] == '_') && segment.All(c => char.IsAsciiLetterOrDigit(c) || c == '_');
}

using System.Text;
using Encryption.Custom.Cosmos.Queries;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Processing;

/// <summary>
/// The one place that decides, before anything is sent, whether a query can work on the container's encrypted
/// properties (docs/queries.md). A randomized path can never be filtered or ordered on (equal values encrypt
/// differently); a deterministic path can be compared for equality only (<c>=</c>, <c>!=</c>, <c>&lt;&gt;</c>,
/// <c>IN</c>, <c>NOT IN</c>); ordering, ranges, string functions and arithmetic on either are refused, because the
/// service would quietly return wrong results.
/// </summary>
/// <remarks>
/// <para>
/// One check for every query the container sees: SQL text as given, and LINQ queries as the SDK translates them
/// (so property names are the serialized ones, whatever the naming policy or attributes). Conservative, on the
/// text: from the first <c>WHERE</c> or <c>ORDER BY</c> keyword outside string literals to the end, every property
/// access <c>x.name</c> or <c>x["name"]</c> naming a policy property is checked — including a nested property of
/// the same name and <c>IS_DEFINED(c.name)</c>, which could work (docs/policy.md). Projections (<c>SELECT c.ssn</c>)
/// are allowed: they return ciphertext that the container decrypts when <c>_ei</c> is selected too.
/// </para>
/// <para>
/// During a key rotation a parameter added by <see cref="EncryptionQueryDefinitionExtensions.AddParameterAsync"/>
/// stands for one ciphertext per accepted key; <see cref="Check(QueryDefinition)"/> rewrites <c>c.p = @v</c> to
/// <c>c.p IN (@v, @v__k1)</c> (<c>!=</c> to <c>NOT IN</c>) and a list entry <c>@v</c> to <c>@v, @v__k1</c>.
/// </para>
/// </remarks>
internal sealed class QueryGuard
{
    private readonly ContainerEncryptionPolicy? _policy;

    /// <param name="policy">The container's policy; queries are checked only when it encrypts writes.</param>
    public QueryGuard(ContainerEncryptionPolicy? policy)
    {
        _policy = policy is { EncryptsWrites: true } ? policy : null;
    }

    /// <summary>Throws when <paramref name="queryText"/> uses an encrypted policy path in a way the service cannot evaluate.</summary>
    /// <exception cref="NotSupportedException">The query uses such a path; the message names it and says why.</exception>
    public void Check(string? queryText)
    {
        if (_policy is not null && !string.IsNullOrEmpty(queryText))
        {
            _ = Scan(queryText, _policy, null);
        }
    }

    /// <summary>Checks <paramref name="queryDefinition"/> and returns it, or a rewritten copy when an encrypted parameter stands for several keys.</summary>
    /// <exception cref="NotSupportedException">The query uses an encrypted path in a way the service cannot evaluate.</exception>
    public QueryDefinition Check(QueryDefinition queryDefinition)
    {
        if (_policy is null || queryDefinition is null || string.IsNullOrEmpty(queryDefinition.QueryText))
        {
            return queryDefinition!;
        }

        EncryptedQueryParameters? expansions = EncryptionQueryDefinitionExtensions.GetExpansions(queryDefinition);
        string? rewritten = Scan(queryDefinition.QueryText, _policy, expansions);
        if (rewritten is null)
        {
            return queryDefinition;
        }

        var copy = new QueryDefinition(rewritten);
        foreach ((string name, object value) in queryDefinition.GetQueryParameters())
        {
            copy = value is Stream stream ? copy.WithParameterStream(name, stream) : copy.WithParameter(name, value);
        }

        return copy;
    }

    /// <summary>Throws on a refused use; returns the rewritten text, or <see langword="null"/> when nothing changes.</summary>
    internal static string? Scan(string text, ContainerEncryptionPolicy policy, EncryptedQueryParameters? expansions)
    {
        EncryptionPlan plan = policy.Plan;
        bool inClause = false;
        bool ordering = false;
        char previous = '\0'; // the last significant character before the current token
        string? previousWord = null;
        int chainStart = 0; // where the current property-access chain (root alias) starts
        List<(int Start, int End, string Replacement)>? edits = null;
        int i = 0;
        while (i < text.Length)
        {
            char c = text[i];
            if (char.IsWhiteSpace(c))
            {
                i++;
                continue;
            }

            if (c is '"' or '\'')
            {
                int end = SkipLiteral(text, i);
                if (inClause && previous == '[' && FindPath(text.AsSpan(i + 1, Math.Max(0, end - i - 2)), plan) is int bracketed)
                {
                    int close = SkipWhiteSpace(text, end);
                    CheckUse(text, plan, policy, bracketed, chainStart, close < text.Length && text[close] == ']' ? close + 1 : end, ordering, expansions, ref edits);
                }

                previous = c;
                previousWord = null;
                i = end;
                continue;
            }

            if (char.IsLetter(c) || c == '_')
            {
                int start = i;
                while (i < text.Length && (char.IsLetterOrDigit(text[i]) || text[i] == '_'))
                {
                    i++;
                }

                string word = text[start..i];
                if (previous != '.' && (start == 0 || text[start - 1] != '@'))
                {
                    chainStart = start;
                }

                if (previous != '.'
                    && (word.Equals("WHERE", StringComparison.OrdinalIgnoreCase)
                        || (word.Equals("BY", StringComparison.OrdinalIgnoreCase) && string.Equals(previousWord, "ORDER", StringComparison.OrdinalIgnoreCase))))
                {
                    inClause = true;
                    ordering = word.Equals("BY", StringComparison.OrdinalIgnoreCase);
                }
                else if (inClause && previous == '.' && FindPath(word, plan) is int dotted)
                {
                    CheckUse(text, plan, policy, dotted, chainStart, i, ordering, expansions, ref edits);
                }

                previous = 'a';
                previousWord = word;
                continue;
            }

            previous = c;
            previousWord = null;
            i++;
        }

        return edits is null ? null : Apply(text, edits);
    }

    private static void CheckUse(
        string text,
        EncryptionPlan plan,
        ContainerEncryptionPolicy policy,
        int pathIndex,
        int start,
        int end,
        bool ordering,
        EncryptedQueryParameters? expansions,
        ref List<(int Start, int End, string Replacement)>? edits)
    {
        string path = plan.GetPath(pathIndex);
        if (!plan.IsDeterministic(pathIndex))
        {
            throw new NotSupportedException(
                $"The query filters or orders on '{path}', which the container's encryption policy encrypts with randomized encryption ({policy.EncryptionAlgorithm}): the service only sees ciphertexts that differ even for equal values, so the query could never match or sort correctly. Filter on other properties and check '{path}' after reading, or encrypt '{path}' deterministically if equality queries are worth what that reveals (docs/queries.md).");
        }

        int after = SkipWhiteSpace(text, end);
        string operatorAfter = ReadOperator(text, after);
        string operatorBefore = ReadOperatorBefore(text, start);
        bool equalityAfter = !ordering && (operatorAfter is "=" or "!=" or "<>" || StartsWithWord(text, after, "IN") || StartsWithNotIn(text, after));
        bool equalityBefore = !ordering && operatorBefore is "=" or "!=" or "<>" && operatorAfter.Length == 0 && !NextIs(text, after, '.', '[');
        if (!equalityAfter && !equalityBefore)
        {
            throw new NotSupportedException(
                $"The query uses '{path}' with something other than an equality test (ordering, a range, a string function or arithmetic): the container's encryption policy encrypts it deterministically, so the service can only compare it for equality with a ciphertext (=, !=, IN with parameters from AddParameterAsync); anything else would quietly return wrong results. Filter on other properties and check '{path}' after reading.");
        }

        if (expansions is null)
        {
            return;
        }

        if (equalityBefore)
        {
            // "@v = c.p": the parameter is on the left of the operator.
            int operatorStart = SkipWhiteSpaceBackwards(text, start - 1) - operatorBefore.Length + 1;
            int parameterEnd = SkipWhiteSpaceBackwards(text, operatorStart - 1) + 1;
            int parameterStart = ParameterStartBefore(text, parameterEnd);
            if (parameterStart >= 0 && expansions.ContainsKey(text[parameterStart..parameterEnd]))
            {
                throw new NotSupportedException(
                    $"During a key rotation the parameter '{text[parameterStart..parameterEnd]}' stands for one ciphertext per accepted key: write the encrypted property first ('c{path.Replace("/", ".", StringComparison.Ordinal)} = {text[parameterStart..parameterEnd]}') so the container can rewrite the comparison as IN.");
            }

            return;
        }

        if (operatorAfter.Length > 0)
        {
            int operandStart = SkipWhiteSpace(text, after + operatorAfter.Length);
            int operandEnd = ParameterEnd(text, operandStart);
            if (operandEnd > operandStart && expansions.TryGetValue(text[operandStart..operandEnd], out string[]? names))
            {
                string list = (operatorAfter == "=" ? "IN (" : "NOT IN (") + string.Join(", ", names) + ")";
                (edits ??= []).Add((after, operandEnd, list));
            }

            return;
        }

        // IN (...) / NOT IN (...): expand every registered parameter of the list.
        int open = text.IndexOf('(', after);
        int close = open < 0 ? -1 : text.IndexOf(')', open);
        if (open < 0 || close < 0)
        {
            return;
        }

        int p = open + 1;
        while (p < close)
        {
            if (text[p] == '@')
            {
                int parameterEnd = ParameterEnd(text, p);
                if (expansions.TryGetValue(text[p..parameterEnd], out string[]? names))
                {
                    (edits ??= []).Add((p, parameterEnd, string.Join(", ", names)));
                }

                p = parameterEnd;
                continue;
            }

            p++;
        }
    }

    private static string Apply(string text, List<(int Start, int End, string Replacement)> edits)
    {
        edits.Sort((a, b) => a.Start.CompareTo(b.Start));
        var result = new StringBuilder(text.Length + 64);
        int cursor = 0;
        foreach ((int start, int end, string replacement) in edits)
        {
            if (start < cursor)
            {
                continue; // the same list seen from two of its properties
            }

            result.Append(text, cursor, start - cursor).Append(replacement);
            cursor = end;
        }

        return result.Append(text, cursor, text.Length - cursor).ToString();
    }

    private static bool IsOperatorChar(char c) => c is '=' or '!' or '<' or '>' or '+' or '-' or '*' or '/' or '%' or '|' or '&' or '^' or '?' or ':';

    private static string ReadOperator(string text, int i)
    {
        int end = i;
        while (end < text.Length && IsOperatorChar(text[end]))
        {
            end++;
        }

        return text[i..end];
    }

    private static string ReadOperatorBefore(string text, int start)
    {
        int end = SkipWhiteSpaceBackwards(text, start - 1);
        int i = end;
        while (i >= 0 && IsOperatorChar(text[i]))
        {
            i--;
        }

        return text[(i + 1)..(end + 1)];
    }

    private static bool NextIs(string text, int i, char a, char b) => i < text.Length && (text[i] == a || text[i] == b);

    private static bool StartsWithWord(string text, int i, string word) =>
        i + word.Length <= text.Length
        && text.AsSpan(i, word.Length).Equals(word, StringComparison.OrdinalIgnoreCase)
        && (i + word.Length == text.Length || !(char.IsLetterOrDigit(text[i + word.Length]) || text[i + word.Length] == '_'));

    private static bool StartsWithNotIn(string text, int i) =>
        StartsWithWord(text, i, "NOT") && StartsWithWord(text, SkipWhiteSpace(text, i + 3), "IN");

    private static int SkipWhiteSpace(string text, int i)
    {
        while (i < text.Length && char.IsWhiteSpace(text[i]))
        {
            i++;
        }

        return i;
    }

    private static int SkipWhiteSpaceBackwards(string text, int i)
    {
        while (i >= 0 && char.IsWhiteSpace(text[i]))
        {
            i--;
        }

        return i;
    }

    private static int ParameterEnd(string text, int i)
    {
        if (i >= text.Length || text[i] != '@')
        {
            return i;
        }

        int end = i + 1;
        while (end < text.Length && (char.IsLetterOrDigit(text[end]) || text[end] == '_'))
        {
            end++;
        }

        return end;
    }

    private static int ParameterStartBefore(string text, int end)
    {
        int i = end - 1;
        while (i >= 0 && (char.IsLetterOrDigit(text[i]) || text[i] == '_'))
        {
            i--;
        }

        return i >= 0 && text[i] == '@' ? i : -1;
    }

    // Just after the closing quote (or the end of the text).
    private static int SkipLiteral(string text, int start)
    {
        char quote = text[start];
        int i = start + 1;
        while (i < text.Length)
        {
            if (text[i] == '\\')
            {
                i += 2;
                continue;
            }

            if (text[i] == quote)
            {
                return i + 1;
            }

            i++;
        }

        return text.Length;
    }

    private static int? FindPath(ReadOnlySpan<char> name, EncryptionPlan plan)
    {
        for (int i = 0; i < plan.PathCount; i++)
        {
            if (plan.GetPath(i).AsSpan(1).SequenceEqual(name))
            {
                return i;
            }
        }

        return null;
    }
}

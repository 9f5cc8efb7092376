using System.Text;
using Encryption.Custom.Cosmos.Queries.Analysis;
using Encryption.Custom.Cosmos.Queries.Sql;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Queries;

/// <summary>
/// Builds the query that is sent: each allowed comparison of a deterministic path is rewritten to compare with
/// fresh parameters holding its operands' ciphertexts (<c>c.ssn = @p</c> → <c>(c.ssn = @__enc0)</c>; during a
/// rotation <c>(c.ssn = @__enc0 OR c.ssn = @__enc1)</c>, <c>!=</c> and <c>&lt;&gt;</c> → <c>(c.ssn != @__enc0 AND c.ssn != @__enc1)</c>,
/// an <c>IN</c> or <c>NOT IN</c> list one entry per ciphertext), and only the
/// parameters the new text still names are copied, so a plaintext operand never leaves the process.
/// </summary>
internal static class QueryRewriter
{
    private const string Prefix = "@__enc";

    /// <param name="definition">The query as given.</param>
    /// <param name="comparisons">The comparisons the analyzer allowed.</param>
    /// <param name="encrypt">The ciphertexts of one operand (one per accepted key), or <see langword="null"/> to send it as it is.</param>
    /// <param name="envelope">Envelope items to add to the SELECT list, or <see langword="null"/>.</param>
    public static QueryDefinition Rewrite(QueryDefinition definition, IReadOnlyList<EncryptedComparison> comparisons, Func<EncryptedComparison, SqlExpression, string[]?> encrypt, EnvelopeInsertion? envelope = null)
    {
        string text = definition.QueryText;
        var parameters = new Dictionary<string, object?>(StringComparer.Ordinal);
        foreach ((string name, object value) in definition.GetQueryParameters())
        {
            parameters[name] = value;
        }

        var added = new List<(string Name, string Value)>();
        int next = 0;
        var result = new StringBuilder(text.Length + 64);
        int cursor = 0;
        foreach (EncryptedComparison comparison in comparisons.OrderBy(c => c.Node.Start))
        {
            if (envelope is not null && envelope.Position <= comparison.Node.Start)
            {
                result.Append(text, cursor, envelope.Position - cursor).Append(envelope.Text);
                cursor = envelope.Position;
                envelope = null;
            }

            var items = new List<string>();
                        IEnumerable<SqlExpression> ordered = comparison.Node is SqlIn sqlIn ? sqlIn.Items : comparison.Operands;
            // By reference, once per comparison: a list lookup per item (records compare by value) made an IN list
            // of n values cost n² comparisons.
            var operands = new HashSet<SqlExpression>(comparison.Operands, ReferenceEqualityComparer.Instance);
            foreach (SqlExpression item in ordered)
            {
                string[]? cipherTexts = operands.Contains(item) ? encrypt(comparison, item) : null;
                if (cipherTexts is null)
                {
                    items.Add(text[item.Start..item.End]);
                    continue;
                }

                foreach (string cipherText in cipherTexts)
                {
                    string name;
                    do
                    {
                        name = Prefix + next++;
                    }
                    while (parameters.ContainsKey(name));

                    added.Add((name, cipherText));
                    items.Add(name);
                }
            }

            string reference = text[comparison.Reference.Start..comparison.Reference.End];
            string replacement = comparison.Node is SqlIn
                ? InList(reference, items, comparison.Negated)
                : Equality(reference, items, comparison.Negated);
            result.Append(text, cursor, comparison.Node.Start - cursor).Append(replacement);
            cursor = comparison.Node.End;
        }

        if (envelope is not null)
        {
            result.Append(text, cursor, envelope.Position - cursor).Append(envelope.Text);
            cursor = envelope.Position;
        }

        string rewritten = result.Append(text, cursor, text.Length - cursor).ToString();
        var copy = new QueryDefinition(rewritten);
        HashSet<string> named = NamedParameters(rewritten);
        foreach ((string name, object? value) in parameters)
        {
            if (named.Contains(name))
            {
                copy = value is Stream stream ? copy.WithParameterStream(name, stream) : copy.WithParameter(name, value);
            }
        }

        foreach ((string name, string value) in added)
        {
            copy = copy.WithParameter(name, value);
        }

        return copy;
    }

    // An IN list stays an IN list, one entry per ciphertext: whatever the service does with a missing property in
    // an IN, it does the same with the longer list. NOT (x IN (...)) rather than x NOT IN (...): the same operator
    // applied to the same list, and understood by every endpoint.
    private static string InList(string reference, List<string> items, bool negated) =>
        negated ? $"(NOT ({reference} IN ({string.Join(", ", items)})))" : $"({reference} IN ({string.Join(", ", items)}))";

    // A comparison keeps its operator: = becomes an OR of =, != an AND of != (one per ciphertext). Never an IN:
    // x != v and NOT (x IN (...)) differ where x is missing (the first is undefined and drops the row, the second
    // may be true), and so do NOT (x = v) and NOT (x IN (...)). With the operator kept, each term is undefined
    // exactly where the plaintext comparison is, and AND/OR of equal terms give the plaintext result.
    private static string Equality(string reference, List<string> items, bool negated)
    {
        string op = negated ? "!=" : "=";
        return items.Count == 1
            ? $"({reference} {op} {items[0]})"
            : "(" + string.Join(negated ? " AND " : " OR ", items.Select(item => $"{reference} {op} {item}")) + ")";
    }

    private static HashSet<string> NamedParameters(string text)
    {
        var names = new HashSet<string>(StringComparer.Ordinal);
        foreach (SqlToken token in SqlTokenizer.Tokenize(text))
        {
            if (token.Kind == SqlTokenKind.Parameter)
            {
                names.Add(token.Value);
            }
        }

        return names;
    }
}

using Encryption.Custom.Cosmos.Queries.Sql;

namespace Encryption.Custom.Cosmos.Queries.Analysis;

/// <summary>
/// Refuses a value that the query both compares with an encrypted path and uses anywhere else (issue 32, the
/// lead's decision): the encrypted comparison is sent with fresh parameters holding ciphertexts, but the other use
/// would send the value itself, in plaintext (<c>c.ssn = @p OR c.name = @p</c>, <c>SELECT @p</c>). For a parameter
/// every other mention counts. A LINQ query's captured values reach the text as literals (the SDK inlines them), so
/// there a literal equal to an encrypted one counts too: <c>x.Ssn == v || x.Name == v</c> is refused, not sent.
/// Messages name the parameter, the path and where the other use is, never a value.
/// </summary>
internal static class MixedOperandUses
{
    /// <exception cref="NotSupportedException">A value is compared with an encrypted path and used elsewhere.</exception>
    public static void Check(string text, IReadOnlyList<SqlToken> tokens, IReadOnlyList<EncryptedComparison> comparisons, QueryPolicyPaths paths, bool literalsAreValues)
    {
        if (comparisons.Count == 0)
        {
            return;
        }

        // Where each encrypted operand starts, and the path it is encrypted for.
        var encrypted = new Dictionary<int, int>();
        var parameters = new Dictionary<string, int>(StringComparer.Ordinal);
        var literals = new Dictionary<(SqlTokenKind, string), int>();
        foreach (EncryptedComparison comparison in comparisons)
        {
            foreach (SqlExpression operand in comparison.Operands)
            {
                encrypted[operand.Start] = comparison.PathIndex;
                if (operand is SqlParameterReference parameter)
                {
                    parameters.TryAdd(parameter.Name, comparison.PathIndex);
                }
                else if (literalsAreValues && LiteralKey(tokens, operand.Start) is { } key)
                {
                    literals.TryAdd(key, comparison.PathIndex);
                }
            }
        }

        for (int i = 0; i < tokens.Count; i++)
        {
            SqlToken token = tokens[i];
            if (encrypted.ContainsKey(token.Start))
            {
                continue;
            }

            if (token.Kind == SqlTokenKind.Parameter && parameters.TryGetValue(token.Value, out int path))
            {
                throw Mixed($"The parameter {token.Value}", paths.GetPath(path), text, tokens, i);
            }

            if (literalsAreValues && literals.Count > 0 && LiteralKey(tokens, token.Start) is { } key && literals.TryGetValue(key, out path))
            {
                throw Mixed("A value of the LINQ query", paths.GetPath(path), text, tokens, i);
            }
        }
    }

    private static bool IsName(IReadOnlyList<SqlToken> tokens, int i) =>
        tokens[i].Kind is SqlTokenKind.Identifier or SqlTokenKind.Symbol
        || (tokens[i].Kind == SqlTokenKind.String && i > 0 && tokens[i - 1].IsSymbol("["));

    private static (SqlTokenKind, string)? LiteralKey(IReadOnlyList<SqlToken> tokens, int start)
    {
        // Tokens are in text order: find the one at start (operands are single tokens: a parameter or a literal).
        int low = 0, high = tokens.Count - 1;
        while (low <= high)
        {
            int middle = (low + high) / 2;
            SqlToken token = tokens[middle];
            if (token.Start == start)
            {
                return token.Kind switch
                {
                    SqlTokenKind.String or SqlTokenKind.Number => (token.Kind, token.Value),
                    SqlTokenKind.Identifier when token.IsKeyword("true") || token.IsKeyword("false") => (token.Kind, token.Value.ToUpperInvariant()),
                    _ => null,
                };
            }

            (low, high) = token.Start < start ? (middle + 1, high) : (low, middle - 1);
        }

        return null;
    }

    // Names the other use by the names and operators just before it (never a literal, which may be a value; a
    // string in brackets is a property name).
    private static NotSupportedException Mixed(string what, string path, string text, IReadOnlyList<SqlToken> tokens, int index)
    {
        int first = index;
        while (first > 0 && index - first < 6 && IsName(tokens, first - 1))
        {
            first--;
        }

        string where = first == index ? string.Empty : $" after '{text[tokens[first].Start..tokens[index - 1].End]}'";
        return new NotSupportedException(
            $"{what} is compared with '{path}', which the container's encryption policy encrypts, and also used at character {tokens[index].Start}{where} (compared with a plaintext property, projected, or computed with): the comparison would be sent encrypted but that use in plaintext. Use a separate parameter (or value) for each, so the plaintext one is visibly plaintext (docs/queries.md, \"One value, one use\").");
    }
}

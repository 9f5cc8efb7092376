using Encryption.Custom.Cosmos.Queries.Sql;

namespace Encryption.Custom.Cosmos.Queries.Analysis;

/// <summary>
/// An allowed comparison must stand on its own in the text: the tokens around it end an expression whatever the
/// service's precedence of operators (documented only in part). Otherwise <c>c.ssn = @p ?? @q</c> could be read
/// by the service as <c>c.ssn = (@p ?? @q)</c> while the library encrypted only <c>@p</c>.
/// </summary>
internal sealed partial class QueryAnalyzer
{
    private static readonly HashSet<string> s_keywordsBefore = new(StringComparer.OrdinalIgnoreCase) { "WHERE", "AND", "OR", "SELECT", "VALUE", "DISTINCT" };

    private static readonly HashSet<string> s_keywordsAfter = new(StringComparer.OrdinalIgnoreCase)
    {
        "AND", "OR", "ORDER", "GROUP", "OFFSET", "AS", "FROM", "WHERE", "JOIN", "ASC", "DESC",
    };

    // Words that continue an expression (operators): anything else after a comparison is an alias (SELECT x = @p a).
    private static readonly HashSet<string> s_operatorWords = new(StringComparer.OrdinalIgnoreCase) { "IN", "NOT", "BETWEEN", "LIKE", "ESCAPE" };

    private void CheckDelimited(SqlExpression comparison, string path)
    {
        int first = FindToken(comparison.Start);
        int last = FindToken(comparison.End - 1);
        if (_tokens[first].IsSymbol("(") && Match(first, +1) == last)
        {
            return; // "(c.ssn = @p)" stands on its own
        }

        // Parentheses of an operand ("(c.ssn) = @p") are inside the comparison: step over them.
        int previous = first - 1;
        while (previous >= 0 && _tokens[previous].IsSymbol("(") && Match(previous, +1) <= last)
        {
            previous--;
        }

        int next = last + 1;
        while (_tokens[next].IsSymbol(")") && Match(next, -1) >= first)
        {
            next++;
        }

        SqlToken? before = previous >= 0 ? _tokens[previous] : null;
        SqlToken after = _tokens[next];
        bool beforeOk = before is not SqlToken b
            || (b.Kind == SqlTokenKind.Symbol && b.Value is "(" or "," or "[" or "?" or ":")
            || (b.Kind == SqlTokenKind.Identifier && s_keywordsBefore.Contains(b.Value));
        bool afterOk = after.Kind == SqlTokenKind.End
            || (after.Kind == SqlTokenKind.Symbol && after.Value is ")" or "," or "]" or "}" or "?" or ":")
            || (after.Kind == SqlTokenKind.Identifier && (s_keywordsAfter.Contains(after.Value) || !s_operatorWords.Contains(after.Value)));
        if (!beforeOk || !afterOk)
        {
            throw QueryRefusals.Ambiguous(path);
        }
    }

    // The index of the parenthesis matching the one at index (direction +1 for '(', -1 for ')').
    private int Match(int index, int direction)
    {
        int depth = 0;
        for (int i = index; i >= 0 && i < _tokens.Count; i += direction)
        {
            if (_tokens[i].IsSymbol("("))
            {
                depth += direction;
            }
            else if (_tokens[i].IsSymbol(")"))
            {
                depth -= direction;
            }

            if (depth == 0)
            {
                return i;
            }
        }

        return direction > 0 ? int.MaxValue : int.MinValue;
    }

    // The index of the token that covers the text position.
    private int FindToken(int position)
    {
        int low = 0;
        int high = _tokens.Count - 1;
        while (low < high)
        {
            int middle = (low + high + 1) / 2;
            if (_tokens[middle].Start <= position)
            {
                low = middle;
            }
            else
            {
                high = middle - 1;
            }
        }

        return low;
    }
}

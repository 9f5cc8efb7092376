using System.Buffers.Text;
using System.Globalization;
using System.Text;
using System.Text.Json;
using Encryption.Custom.Cosmos.Queries.Sql;
using Encryption.Custom.Json.Leasing;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Tokens;
using Encryption.Custom.Keys;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Queries.Tokens;

/// <summary>
/// Rewrites the range and prefix conditions of a query on token paths into token matches the service's index serves
/// (docs/queries.md "Range and prefix queries"): <c>c.age &gt;= @a</c>, <c>c.age BETWEEN 1 AND 9</c>,
/// <c>STARTSWITH(c.name, @p)</c> become <c>EXISTS(SELECT VALUE t FROM t IN c._q["/age"] WHERE t IN (@__qt0, ...))</c>
/// over the tokens of the condition's cover (or prefix) under every accepted key, and returns the conditions for the
/// client's re-check of each decrypted row. Only conditions ANDed at the top of the outermost WHERE of a query that
/// returns whole documents are served (the re-check needs the value and must be able to drop a row); anything else
/// on a token path is left to the query guard, which refuses it.
/// </summary>
internal static class TokenQueryRewriter
{
    private const string Prefix = "@__qt";

    /// <summary>The query to send and the conditions to re-check, or (<paramref name="definition"/>, null) when it has no condition on a token path.</summary>
    /// <exception cref="NotSupportedException">A condition on a token path in a shape that cannot be served, naming the shape.</exception>
    /// <exception cref="EncryptionException">A key is unavailable.</exception>
    public static (QueryDefinition Definition, TokenPredicate[]? Recheck) Rewrite(QueryDefinition definition, SqlQuery query, ContainerEncryptionPolicy policy, Encryptor encryptor, CosmosSerializer serializer)
    {
        if (!policy.Plan.HasQueryTokens || query.Where is null || query.From is not { Iterates: false, Collection: SqlPathCollection { Segments.Count: 0 } from } || from.Root is null)
        {
            return (definition, null);
        }

        string alias = query.From.Alias ?? from.Root;
        var parameters = new Dictionary<string, object?>(StringComparer.Ordinal);
        foreach ((string name, object value) in definition.GetQueryParameters())
        {
            parameters[name] = value;
        }

        var found = new List<(SqlExpression Node, TokenPredicate Predicate)>();
        foreach (SqlExpression conjunct in Conjuncts(query.Where))
        {
            if (TryRead(conjunct, alias, policy, parameters, serializer) is { } predicate)
            {
                found.Add((conjunct, predicate));
            }
        }

        if (found.Count == 0)
        {
            return (definition, null);
        }

        CheckShape(query, alias, found[0].Predicate.Rule.Path);
        string text = definition.QueryText;
        var result = new StringBuilder(text.Length + 256);
        var added = new List<(string Name, string Value)>();
        int next = 0;
        int cursor = 0;
        foreach ((SqlExpression node, TokenPredicate predicate) in found.OrderBy(f => f.Node.Start))
        {
            List<string> tokens = Tokens(predicate, policy, encryptor);
            result.Append(text, cursor, node.Start - cursor);
            if (tokens.Count == 0)
            {
                result.Append("(false)");
            }
            else
            {
                var names = new List<string>(tokens.Count);
                foreach (string token in tokens)
                {
                    string name;
                    do
                    {
                        name = Prefix + (next++).ToString(CultureInfo.InvariantCulture);
                    }
                    while (parameters.ContainsKey(name));

                    added.Add((name, token));
                    names.Add(name);
                }

                result.Append(CultureInfo.InvariantCulture, $"EXISTS(SELECT VALUE __qt FROM __qt IN {alias}[\"{QueryTokenRule.MemberName}\"][\"{predicate.Rule.Path}\"] WHERE __qt IN ({string.Join(", ", names)}))");
            }

            cursor = node.End;
        }

        string rewritten = result.Append(text, cursor, text.Length - cursor).ToString();
        var copy = new QueryDefinition(rewritten);
        var named = new HashSet<string>(SqlTokenizer.Tokenize(rewritten).Where(t => t.Kind == SqlTokenKind.Parameter).Select(t => t.Value), StringComparer.Ordinal);
        foreach ((string name, object? value) in parameters)
        {
            // The plaintext bounds are no longer named: they never leave the process.
            if (named.Contains(name))
            {
                copy = value is Stream stream ? copy.WithParameterStream(name, stream) : copy.WithParameter(name, value);
            }
        }

        foreach ((string name, string value) in added)
        {
            copy = copy.WithParameter(name, value);
        }

        return (copy, [.. found.Select(f => f.Predicate)]);
    }

    // The conditions ANDed at the top: each can be re-checked on its own, since a row must satisfy all of them.
    private static IEnumerable<SqlExpression> Conjuncts(SqlExpression where) =>
        where is SqlBinary { Operator: var op } and_ && op.Equals("AND", StringComparison.OrdinalIgnoreCase)
            ? Conjuncts(and_.Left).Concat(Conjuncts(and_.Right))
            : [where];

    private static void CheckShape(SqlQuery query, string alias, string path)
    {
        string? problem = query switch
        {
            { Joins.Count: > 0 } => "a JOIN",
            { Select.Distinct: true } => "SELECT DISTINCT",
            { Select.Top: not null } => "TOP",
            { Offset: not null } or { Limit: not null } => "OFFSET ... LIMIT",
            { GroupBy.Count: > 0 } => "GROUP BY",
            { Select.Star: true } => null,
            { Select: { Value: true, Items: [{ Expression: SqlName name }] } } when name.Name == alias => null,
            _ => "a projection other than the whole document",
        };
        if (problem is not null)
        {
            throw new NotSupportedException(
                $"The query's range or prefix condition on the encrypted path '{path}' is served by query tokens and re-checked on the client after decryption, which needs whole documents and the freedom to drop rows: it cannot be combined with {problem}. Select the whole document (SELECT * or SELECT VALUE {alias}) without TOP, OFFSET/LIMIT, DISTINCT, GROUP BY or JOIN (docs/queries.md, \"Range and prefix queries\").");
        }
    }

    private static TokenPredicate? TryRead(SqlExpression condition, string alias, ContainerEncryptionPolicy policy, Dictionary<string, object?> parameters, CosmosSerializer serializer)
    {
        switch (condition)
        {
            case SqlBinary { Operator: "<" or "<=" or ">" or ">=" } binary:
                bool flipped = Rule(binary.Left, alias, policy) is null;
                SqlExpression reference = flipped ? binary.Right : binary.Left;
                if (Rule(reference, alias, policy) is not { Range: not null } rangeRule)
                {
                    return null;
                }

                decimal bound = Bound(rangeRule, flipped ? binary.Left : binary.Right, parameters, serializer);
                bool greater = binary.Operator[0] == '>' ^ flipped;
                bool inclusive = binary.Operator.EndsWith('=');
                return greater ? new(rangeRule, bound, inclusive, null, false, null, false) : new(rangeRule, null, false, bound, inclusive, null, false);
            case SqlBetween { Negated: false } between when Rule(between.Value, alias, policy) is { Range: not null } betweenRule:
                return new(betweenRule, Bound(betweenRule, between.Low, parameters, serializer), true, Bound(betweenRule, between.High, parameters, serializer), true, null, false);
            case SqlCall { IsUserDefined: false, Arguments.Count: 2 or 3 } call when call.Name.Equals("STARTSWITH", StringComparison.OrdinalIgnoreCase) && Rule(call.Arguments[0], alias, policy) is { IsPrefix: true } prefixRule:
                bool ignoreCase = call.Arguments.Count == 3 && (call.Arguments[2] is SqlLiteral { Kind: SqlLiteralKind.Boolean } flag
                    ? flag.Text.Equals("true", StringComparison.OrdinalIgnoreCase)
                    : throw Refused(prefixRule, "the third argument of STARTSWITH must be the literal true or false"));
                if (ignoreCase && !prefixRule.IgnoreCase)
                {
                    throw Refused(prefixRule, "a case-insensitive STARTSWITH needs the path declared with IgnoreCase = true");
                }

                return new(prefixRule, null, false, null, false, Text(prefixRule, call.Arguments[1], parameters, serializer), ignoreCase);
            default:
                return null;
        }
    }

    // The token path a reference names exactly, top-level or nested (alias.a.b, alias["a"]["b"] or a mix), or null.
    private static QueryTokenRule? Rule(SqlExpression expression, string alias, ContainerEncryptionPolicy policy)
    {
        var names = new List<string>();
        while (expression is SqlMember member)
        {
            names.Add(member.Name);
            expression = member.Target;
        }

        if (expression is not SqlName target || target.Name != alias || names.Count == 0)
        {
            return null;
        }

        names.Reverse();
        EncryptionPlan plan = policy.Plan;
        for (int i = 0; i < plan.PathCount; i++)
        {
            if (plan.GetQueryTokens(i) is { } rule && plan.GetRulePath(i).Segments.SequenceEqual(names, StringComparer.Ordinal))
            {
                return rule;
            }
        }

        return null;
    }

    private static decimal Bound(QueryTokenRule rule, SqlExpression operand, Dictionary<string, object?> parameters, CosmosSerializer serializer)
    {
        JsonElement value = Operand(rule, operand, parameters, serializer);
        if (rule.Range!.Type == RangeValueType.DateTime)
        {
            return value.ValueKind == JsonValueKind.String && IsoDateTime.TryParseUtcTicks(Encoding.UTF8.GetBytes(value.GetString()!), out long ticks)
                ? ticks
                : throw Refused(rule, "a date-time bound must be an ISO 8601 string with an offset (a DateTimeOffset, or a DateTime of kind Utc)");
        }

        return value.ValueKind == JsonValueKind.Number && value.TryGetDecimal(out decimal number)
            ? number
            : throw Refused(rule, "a numeric bound must be a number");
    }

    private static string Text(QueryTokenRule rule, SqlExpression operand, Dictionary<string, object?> parameters, CosmosSerializer serializer)
    {
        JsonElement value = Operand(rule, operand, parameters, serializer);
        return value.ValueKind == JsonValueKind.String ? value.GetString()! : throw Refused(rule, "a prefix must be a string");
    }

    // A literal by its JSON text; a parameter as the client's serializer writes it (as a stored value is written).
    private static JsonElement Operand(QueryTokenRule rule, SqlExpression operand, Dictionary<string, object?> parameters, CosmosSerializer serializer)
    {
        switch (operand)
        {
            case SqlLiteral { Kind: SqlLiteralKind.String } literal:
                using (JsonDocument text = JsonDocument.Parse("\"" + JsonEncodedText.Encode(literal.Text).ToString() + "\""))
                {
                    return text.RootElement.Clone();
                }

            case SqlLiteral { Kind: SqlLiteralKind.Number } literal when !literal.Text.StartsWith("0x", StringComparison.OrdinalIgnoreCase):
                using (JsonDocument number = JsonDocument.Parse(literal.Text))
                {
                    return number.RootElement.Clone();
                }

            case SqlUnary { Operator: "-", Operand: SqlLiteral { Kind: SqlLiteralKind.Number } negated } when !negated.Text.StartsWith("0x", StringComparison.OrdinalIgnoreCase):
                using (JsonDocument number = JsonDocument.Parse("-" + negated.Text))
                {
                    return number.RootElement.Clone();
                }

            case SqlParameterReference parameter when parameters.TryGetValue(parameter.Name, out object? value) && value is not null and not Stream:
                using (Stream json = serializer.ToStream(value))
                using (JsonDocument serialized = JsonDocument.Parse(json))
                {
                    return serialized.RootElement.Clone();
                }

            default:
                throw Refused(rule, "the value compared with must be a parameter or a literal (not null, an expression or another property)");
        }
    }

    private static List<string> Tokens(TokenPredicate predicate, ContainerEncryptionPolicy policy, Encryptor encryptor)
    {
        QueryTokenRule rule = predicate.Rule;
        var nodes = new List<(int Level, ulong Node)>();
        byte[]? prefix = null;
        if (rule.Range is { } domain)
        {
            (decimal? lowBound, decimal? highBound) = (predicate.Low, predicate.High);
            if (domain.Type == RangeValueType.Integer)
            {
                // Integers only: an open or fractional bound moves to the nearest integer inside the range.
                lowBound = lowBound is { } l ? (predicate.LowInclusive ? decimal.Ceiling(l) : decimal.Floor(l) + 1) : null;
                highBound = highBound is { } h ? (predicate.HighInclusive ? decimal.Floor(h) : decimal.Ceiling(h) - 1) : null;
            }

            if (domain.TryGetCoverBounds(lowBound, highBound, out ulong low, out ulong high))
            {
                domain.Cover(low, high, nodes);
            }

            if (nodes.Count == 0)
            {
                return [];
            }
        }
        else
        {
            prefix = PrefixOperand(rule, predicate.Prefix!);
        }

        var tokens = new List<string>();
        byte[] token = new byte[rule.TokenLength];
        foreach (string keyId in policy.ReadableKeyIds)
        {
            using DataEncryptionKeyLease lease = KeyResolver.Lease(encryptor, keyId, policy.EncryptionAlgorithm);
            if (prefix is not null)
            {
                QueryTokens.Compute(lease.Key, rule, QueryTokenKind.Prefix, Math.Min(Encoding.UTF8.GetString(prefix).EnumerateRunes().Count(), rule.MaxRunes), prefix, token);
                tokens.Add(Base64Url.EncodeToString(token));
                continue;
            }

            foreach ((int level, ulong node) in nodes)
            {
                QueryTokens.ComputeRangeNode(lease.Key, rule, level, node, token);
                tokens.Add(Base64Url.EncodeToString(token));
            }
        }

        return tokens;
    }

    // The normalized prefix, cut to the longest prefix with a token; one shorter than the shortest declared is refused.
    private static byte[] PrefixOperand(QueryTokenRule rule, string prefix)
    {
        var text = default(PrefixText);
        try
        {
            if (!text.TryNormalize(Encoding.UTF8.GetBytes(prefix), rule.IgnoreCase))
            {
                throw Refused(rule, "the prefix is not valid Unicode");
            }

            int length = PrefixText.PrefixByteLength(text.Utf8, rule.MinRunes);
            if (length < 0)
            {
                throw Refused(rule, $"the prefix is shorter than the {rule.MinRunes} characters the path declares (MinLength)");
            }

            int cut = PrefixText.PrefixByteLength(text.Utf8, rule.MaxRunes);
            return text.Utf8[..(cut < 0 ? text.Utf8.Length : cut)].ToArray();
        }
        finally
        {
            text.Dispose();
        }
    }

    private static NotSupportedException Refused(QueryTokenRule rule, string why) =>
        new($"The query's range or prefix condition on the encrypted path '{rule.Path}' cannot be served: {why} (docs/queries.md, \"Range and prefix queries\").");
}

using Encryption.Custom.Cosmos.Queries.Sql;

namespace Encryption.Custom.Cosmos.Queries.Analysis;

/// <summary>The rules: which uses of a policy path are allowed.</summary>
internal sealed partial class QueryAnalyzer
{
    private void CheckUse(ResolvedPath path, QueryUse use)
    {
        string operation = Describe(use);
        if (!path.IsKnown)
        {
            // A value the analyzer cannot trace: refused when a step could be a selector's (at any depth).
            foreach (PathStep step in path.Segments)
            {
                if (step.IsComputed)
                {
                    throw QueryRefusals.Computed(_policy.GetPath(0), operation);
                }

                if (step.Name is not null && _policy.FindSegment(step.Name) is int named and >= 0)
                {
                    throw QueryRefusals.Unattributable(_policy.GetPath(named), operation);
                }
            }

            return;
        }

        if (path.Segments.Count == 0)
        {
            // The document itself holds every policy path.
            // Nested in what is returned (SELECT c, SELECT * with JOIN), its envelope is not at the top: bare.
            if (use is QueryUse.Other or QueryUse.Ordering or QueryUse.Grouping or QueryUse.SubqueryProjection or QueryUse.BareProjection)
            {
                throw QueryRefusals.WholeDocument(_policy.GetPath(0), operation);
            }

            return;
        }

        PolicyPosition position = _policy.Classify(path.Segments);
        switch (position.Kind)
        {
            case PolicyPositionKind.Plain:
                return;
            case PolicyPositionKind.Computed:
                throw QueryRefusals.Computed(_policy.GetPath(position.RuleIndex), operation);
            case PolicyPositionKind.Inside:
                throw QueryRefusals.Inside(_policy.GetPath(position.RuleIndex), operation);
            case PolicyPositionKind.Holds:
                CheckHolds(path, position.RuleIndex, use, operation);
                return;
        }

        string policyPath = _policy.GetPath(position.RuleIndex);
        if (use == QueryUse.BareProjection)
        {
            throw QueryRefusals.BareProjection(policyPath, Describe(path), _policy.GetTopLevelName(position.RuleIndex), EnvelopeItems());
        }

        if (use == QueryUse.DistinctProjection)
        {
            throw QueryRefusals.Distinct(policyPath);
        }

        bool deterministic = _policy.IsDeterministic(position.RuleIndex);
        bool allowed = use is QueryUse.Projection or QueryUse.Existence;
        if (!allowed)
        {
            throw deterministic ? QueryRefusals.Deterministic(policyPath, operation) : QueryRefusals.Randomized(policyPath, operation, _policy.EncryptionAlgorithm);
        }
    }

    // A value that holds cells (c.address of /address/city, c.cards[0] of /cards/[]/number): it can be tested for
    // existence or returned where the container decrypts it; anything computed with it would meet ciphertext.
    private void CheckHolds(ResolvedPath path, int ruleIndex, QueryUse use, string operation)
    {
        string selector = _policy.GetPath(ruleIndex);
        switch (use)
        {
            case QueryUse.Projection or QueryUse.Existence:
                return;
            case QueryUse.BareProjection:
                throw QueryRefusals.BareProjection(selector, Describe(path), _policy.GetTopLevelName(ruleIndex), EnvelopeItems());
            default:
                throw QueryRefusals.Holds(Describe(path), selector, operation);
        }
    }

    // What a returned row must carry beside a projected policy value for the container to decrypt it.
    private string EnvelopeItems() =>
        _policy.RequiresId ? (_policy.RequiresQueryTokens ? "c._ei, c._ex, c._q, c.id and the partition key" : "c._ei, c._ex, c.id and the partition key")
        : _policy.RequiresQueryTokens ? "c._ei, c._ex and c._q" : _policy.RequiresAnchor ? "c._ei and c._ex" : "c._ei";

    // A path for messages, as a selector would spell it (/cards/[]/number); never a value.
    private static string Describe(ResolvedPath path) =>
        string.Concat(path.Segments.Select(s => s.IsComputed ? "/[?]" : s.Name is null ? "/[]" : "/" + s.Name));

    private static string Describe(QueryUse use) => use switch
    {
        QueryUse.Ordering => "ORDER BY",
        QueryUse.Grouping => "GROUP BY",
        QueryUse.DistinctProjection => "SELECT DISTINCT",
        QueryUse.SubqueryProjection => "a subquery's result, which the query computes with",
        QueryUse.Existence => "IS_DEFINED, IS_NULL or COUNT",
        QueryUse.Projection or QueryUse.BareProjection => "a projection",
        _ => "a filter or computation (an operator other than an equality with a parameter or literal, a range, a function, arithmetic or a condition)",
    };

    // reference = operand (either order): allowed on a deterministic path when the operand is a parameter or literal.
    private bool TryEquality(SqlBinary comparison, SqlExpression reference, SqlExpression operand, Dictionary<string, ResolvedPath> scope)
    {
        if (!IsReference(reference) || ExactPolicyPath(Resolve(reference, scope)) is not int index)
        {
            return false;
        }

        string path = _policy.GetPath(index);
        if (!_policy.IsDeterministic(index))
        {
            throw QueryRefusals.Randomized(path, "an equality", _policy.EncryptionAlgorithm);
        }

        if (!IsEncryptable(operand) && !IsNullLiteral(operand))
        {
            throw QueryRefusals.Deterministic(path, "an equality with an expression the library cannot encrypt (only a parameter or a literal)");
        }

        CheckDelimited(comparison, path);
        VisitComputedIndexes(reference, scope);
        if (IsEncryptable(operand))
        {
            _comparisons.Add(new EncryptedComparison(comparison, reference, index, [operand], [], comparison.Operator != "="));
        }

        return true;
    }

    // reference [NOT] IN (operands): allowed on a deterministic path when every item is a parameter or literal.
    private bool TryList(SqlIn list, Dictionary<string, ResolvedPath> scope)
    {
        if (!IsReference(list.Value) || ExactPolicyPath(Resolve(list.Value, scope)) is not int index)
        {
            return false;
        }

        string path = _policy.GetPath(index);
        if (!_policy.IsDeterministic(index))
        {
            throw QueryRefusals.Randomized(path, "an IN list", _policy.EncryptionAlgorithm);
        }

        var operands = new List<SqlExpression>();
        var others = new List<SqlExpression>();
        foreach (SqlExpression item in list.Items)
        {
            if (IsEncryptable(item))
            {
                operands.Add(item);
            }
            else if (IsNullLiteral(item))
            {
                others.Add(item);
            }
            else
            {
                throw QueryRefusals.Deterministic(path, "an IN list with an item the library cannot encrypt (only parameters and literals)");
            }
        }

        CheckDelimited(list, path);
        VisitComputedIndexes(list.Value, scope);
        if (operands.Count > 0)
        {
            _comparisons.Add(new EncryptedComparison(list, list.Value, index, operands, others, list.Negated));
        }

        return true;
    }

    // A reference to exactly one cell (top-level or nested, through aliases and JOIN iterations): its selector.
    private int? ExactPolicyPath(ResolvedPath path) =>
        path is { IsKnown: true, Segments.Count: > 0 } && _policy.Classify(path.Segments) is { Kind: PolicyPositionKind.Cell } cell ? cell.RuleIndex : null;

    private static bool IsEncryptable(SqlExpression operand) =>
        operand is SqlParameterReference or SqlLiteral { Kind: SqlLiteralKind.String or SqlLiteralKind.Number or SqlLiteralKind.Boolean };

    private static bool IsNullLiteral(SqlExpression operand) => operand is SqlLiteral { Kind: SqlLiteralKind.Null };
}

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
            // A value the analyzer cannot trace: refused when a step could be a policy path.
            foreach (PathStep step in path.Segments)
            {
                if (step.IsComputed)
                {
                    throw QueryRefusals.Computed(_policy.GetPath(0), operation);
                }

                if (PolicyIndex(step) is int named)
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

        PathStep first = path.Segments[0];
        if (first.IsComputed)
        {
            throw QueryRefusals.Computed(_policy.GetPath(0), operation);
        }

        if (PolicyIndex(first) is not int index)
        {
            return;
        }

        string policyPath = _policy.GetPath(index);
        if (path.Segments.Count > 1)
        {
            throw QueryRefusals.Inside(policyPath, operation);
        }

        if (use == QueryUse.BareProjection)
        {
            throw QueryRefusals.BareProjection(policyPath);
        }

        bool deterministic = _policy.IsDeterministic(index);
        bool allowed = use switch
        {
            QueryUse.Projection or QueryUse.Existence => true,
            QueryUse.DistinctProjection => deterministic,
            _ => false,
        };
        if (!allowed)
        {
            throw deterministic ? QueryRefusals.Deterministic(policyPath, operation) : QueryRefusals.Randomized(policyPath, operation, _policy.EncryptionAlgorithm);
        }
    }

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

    private int? ExactPolicyPath(ResolvedPath path) =>
        path is { IsKnown: true, Segments.Count: 1 } && !path.Segments[0].IsComputed ? PolicyIndex(path.Segments[0]) : null;

    private static bool IsEncryptable(SqlExpression operand) =>
        operand is SqlParameterReference or SqlLiteral { Kind: SqlLiteralKind.String or SqlLiteralKind.Number or SqlLiteralKind.Boolean };

    private static bool IsNullLiteral(SqlExpression operand) => operand is SqlLiteral { Kind: SqlLiteralKind.Null };
}

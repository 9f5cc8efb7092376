using Encryption.Custom.Cosmos.Queries.Sql;

namespace Encryption.Custom.Cosmos.Queries.Analysis;

/// <summary>Scalar expressions: what each reference resolves to and whether its use is allowed.</summary>
internal sealed partial class QueryAnalyzer
{
    private void Visit(SqlExpression expression, QueryUse use, Dictionary<string, ResolvedPath> scope)
    {
        switch (expression)
        {
            case SqlName or SqlMember or SqlIndexer when IsReference(expression):
                CheckUse(Resolve(expression, scope), use);
                VisitComputedIndexes(expression, scope);
                break;
            case SqlMember member:
                // A property of a computed value ((a ?? b).x, f(c).x): the value itself is computed with.
                Visit(member.Target, QueryUse.Other, scope);
                CheckUse(ResolvedPath.Unknown.Append(PathStep.Property(member.Name)), use);
                break;
            case SqlIndexer indexer:
                Visit(indexer.Target, QueryUse.Other, scope);
                Visit(indexer.Index, QueryUse.Other, scope);
                break;
            case SqlBinary { Operator: "=" or "!=" or "<>" } binary
                when TryEquality(binary, binary.Left, binary.Right, scope) || TryEquality(binary, binary.Right, binary.Left, scope):
                break;
            case SqlIn list when TryList(list, scope):
                break;
            case SqlCall { IsUserDefined: false } call when IsExistenceFunction(call):
                Visit(call.Arguments[0], QueryUse.Existence, scope);
                break;
            case SqlObjectLiteral obj:
                // In the outermost SELECT VALUE an object is the returned document: {"ssn": c.ssn, "_ei": c._ei} is
                // decrypted; a policy value under another name or without _ei is a bare projection.
                bool envelope = use is QueryUse.Projection or QueryUse.DistinctProjection && HasEnvelope(obj.Properties.Select(p => (p.Value, (string?)p.Name)), scope);
                foreach (SqlObjectProperty property in obj.Properties)
                {
                    Visit(property.Value, envelope && IsOwnName(property.Value, property.Name, scope) ? use : ProjectionOrOther(use), scope);
                }

                break;
            case SqlArrayLiteral array:
                foreach (SqlExpression item in array.Items)
                {
                    Visit(item, ProjectionOrOther(use), scope);
                }

                break;
            case SqlSubquery subquery:
                _ = AnalyzeQuery(subquery.Query, scope, outermost: false, existence: subquery.Kind == SqlSubqueryKind.Exists);
                break;
            default:
                foreach (SqlExpression child in Children(expression))
                {
                    Visit(child, QueryUse.Other, scope);
                }

                break;
        }
    }

    private static QueryUse ProjectionOrOther(QueryUse use) =>
        use is QueryUse.Projection or QueryUse.DistinctProjection or QueryUse.BareProjection ? QueryUse.BareProjection
        : use is QueryUse.SubqueryProjection ? use : QueryUse.Other;

    // A reference to a top-level property that is or holds policy values, returned under exactly its name (as _ei lists it).
    private bool IsOwnName(SqlExpression expression, string? name, IReadOnlyDictionary<string, ResolvedPath> scope) =>
        name is not null && IsReference(expression) && Resolve(expression, scope) is { IsKnown: true, Segments: [{ Name: string step }] }
        && _policy.Find(step) is int index and >= 0 && _policy.GetTopLevelName(index) == name;

    private static bool IsExistenceFunction(SqlCall call) =>
        call.Arguments.Count == 1
        && (call.Name.Equals("IS_DEFINED", StringComparison.OrdinalIgnoreCase)
            || call.Name.Equals("IS_NULL", StringComparison.OrdinalIgnoreCase)
            || call.Name.Equals("COUNT", StringComparison.OrdinalIgnoreCase));

    private static IEnumerable<SqlExpression> Children(SqlExpression expression) => expression switch
    {
        SqlUnary unary => [unary.Operand],
        SqlBinary binary => [binary.Left, binary.Right],
        SqlBetween between => [between.Value, between.Low, between.High],
        SqlIn list => [list.Value, .. list.Items],
        SqlLike like => like.Escape is null ? [like.Value, like.Pattern] : [like.Value, like.Pattern, like.Escape],
        SqlConditional conditional => [conditional.Condition, conditional.WhenTrue, conditional.WhenFalse],
        SqlCall call => call.Arguments,
        _ => [],
    };

    /// <summary>Whether <paramref name="expression"/> is a name followed by property accesses and indexes.</summary>
    private static bool IsReference(SqlExpression expression) => expression switch
    {
        SqlName => true,
        SqlMember member => IsReference(member.Target),
        SqlIndexer indexer => IsReference(indexer.Target),
        _ => false,
    };

    private static ResolvedPath Resolve(SqlExpression reference, IReadOnlyDictionary<string, ResolvedPath> scope) => reference switch
    {
        SqlName name => scope.TryGetValue(name.Name, out ResolvedPath? bound)
            ? bound
            : ResolvedPath.Unknown.Append(PathStep.Property(name.Name)), // an unbound name: its own name is a clue
        SqlMember member => Resolve(member.Target, scope).Append(PathStep.Property(member.Name)),
        SqlIndexer { Index: SqlLiteral { Kind: SqlLiteralKind.Number } } indexer => Resolve(indexer.Target, scope).Append(PathStep.Element),
        SqlIndexer indexer => Resolve(indexer.Target, scope).Append(PathStep.Computed),
        _ => ResolvedPath.Unknown,
    };

    private void VisitComputedIndexes(SqlExpression reference, Dictionary<string, ResolvedPath> scope)
    {
        for (SqlExpression current = reference; current is not SqlName;)
        {
            if (current is SqlIndexer indexer)
            {
                Visit(indexer.Index, QueryUse.Other, scope);
                current = indexer.Target;
            }
            else
            {
                current = ((SqlMember)current).Target;
            }
        }
    }
}

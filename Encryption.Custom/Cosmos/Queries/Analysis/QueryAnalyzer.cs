using Encryption.Custom.Cosmos.Queries.Sql;

namespace Encryption.Custom.Cosmos.Queries.Analysis;

/// <summary>
/// Resolves every reference of a parsed query through its aliases (<c>FROM c</c>, <c>FROM c.card s</c>,
/// <c>JOIN x IN c.arr</c>, <c>JOIN (SELECT VALUE c.card) s</c>) and subqueries to a document path, and checks each
/// use of a policy path: equality with values the library encrypts on a deterministic path, <c>IS_DEFINED</c>,
/// <c>IS_NULL</c>, <c>COUNT</c>, projection, and <c>DISTINCT</c> on a deterministic path are allowed; anything
/// else throws <see cref="NotSupportedException"/> (docs/queries.md). Returns the comparisons whose operands must
/// be encrypted.
/// </summary>
internal sealed partial class QueryAnalyzer
{
    private readonly QueryPolicyPaths _policy;
    private readonly IReadOnlyList<SqlToken> _tokens;
    private readonly List<EncryptedComparison> _comparisons = [];
    private EnvelopeInsertion? _envelope;

    private QueryAnalyzer(QueryPolicyPaths policy, IReadOnlyList<SqlToken> tokens)
    {
        _policy = policy;
        _tokens = tokens;
    }

    /// <summary>Checks <paramref name="query"/>; returns the comparisons to encrypt.</summary>
    /// <exception cref="NotSupportedException">A policy path is used in a way the service cannot evaluate.</exception>
    public static IReadOnlyList<EncryptedComparison> Analyze(SqlQuery query, IReadOnlyList<SqlToken> tokens, QueryPolicyPaths policy) =>
        Analyze(query, tokens, policy, out _);

    /// <summary>Checks <paramref name="query"/>; returns the comparisons to encrypt and the envelope items to add to the SELECT list, if any.</summary>
    /// <exception cref="NotSupportedException">A policy path is used in a way the service cannot evaluate.</exception>
    public static IReadOnlyList<EncryptedComparison> Analyze(SqlQuery query, IReadOnlyList<SqlToken> tokens, QueryPolicyPaths policy, out EnvelopeInsertion? envelope)
    {
        var analyzer = new QueryAnalyzer(policy, tokens);
        analyzer.AnalyzeQuery(query, new Dictionary<string, ResolvedPath>(StringComparer.Ordinal), outermost: true);
        envelope = analyzer._envelope;
        return analyzer._comparisons;
    }

    /// <summary>Analyzes a query; returns what its rows are when its SELECT is <c>VALUE</c> of a plain reference, else <see cref="ResolvedPath.Unknown"/>.</summary>
    /// <remarks>An EXISTS subquery (<paramref name="existence"/>) only tells whether it returns rows, so its projection is an existence test.</remarks>
    private ResolvedPath AnalyzeQuery(SqlQuery query, IReadOnlyDictionary<string, ResolvedPath> outer, bool outermost, bool asCollection = false, bool existence = false)
    {
        var scope = new Dictionary<string, ResolvedPath>(outer, StringComparer.Ordinal);
        if (query.From is not null)
        {
            Bind(query.From, scope);
        }

        foreach (SqlFromSource join in query.Joins)
        {
            Bind(join, scope);
        }

        if (query.Where is not null)
        {
            Visit(query.Where, QueryUse.Other, scope);
        }

        foreach (SqlExpression group in query.GroupBy)
        {
            Visit(group, QueryUse.Grouping, scope);
        }

        foreach (SqlOrderItem order in query.OrderBy)
        {
            Visit(order.Expression, QueryUse.Ordering, scope);
        }

        VisitIfPresent(query.Select.Top, scope);
        VisitIfPresent(query.Offset, scope);
        VisitIfPresent(query.Limit, scope);

        // A FROM/JOIN subquery of the form SELECT VALUE <reference> stands for that path: its alias is resolved
        // through it, and the uses of the alias are checked where they occur.
        if (asCollection && query.Select is { Value: true, Distinct: false } && IsReference(query.Select.Items[0].Expression))
        {
            return Resolve(query.Select.Items[0].Expression, scope);
        }

        if (!outermost)
        {
            foreach (SqlSelectItem item in query.Select.Items)
            {
                Visit(item.Expression, existence ? QueryUse.Existence : QueryUse.SubqueryProjection, scope);
            }

            return ResolvedPath.Unknown;
        }

        CheckOutermostSelect(query, scope);
        return ResolvedPath.Unknown;
    }

    // What the application receives: a policy value only where the container can decrypt it.
    private void CheckOutermostSelect(SqlQuery query, Dictionary<string, ResolvedPath> scope)
    {
        QueryUse decrypted = query.Select.Distinct ? QueryUse.DistinctProjection : QueryUse.Projection;
        if (query.Select.Star)
        {
            // SELECT * returns each source: the document (with its _ei), or an alias's bare value.
            foreach (SqlFromSource source in query.Joins.Prepend(query.From!).Where(s => s is { Alias: not null }))
            {
                CheckUse(scope[source.Alias!], query.Joins.Count == 0 && scope[source.Alias!].Segments.Count == 0 ? decrypted : QueryUse.BareProjection);
            }

            return;
        }

        if (query.Select.Value)
        {
            SqlExpression value = query.Select.Items[0].Expression;
            bool document = value is SqlObjectLiteral || (IsReference(value) && Resolve(value, scope) is { IsKnown: true, Segments.Count: 0 });
            Visit(value, document ? decrypted : QueryUse.BareProjection, scope);
            return;
        }

        bool envelope = HasEnvelope(query.Select.Items.Select(i => (i.Expression, i.Alias ?? ImplicitName(i.Expression))), scope)
            || TryAddEnvelope(query, scope);
        foreach (SqlSelectItem item in query.Select.Items)
        {
            bool own = envelope && IsOwnName(item.Expression, item.Alias ?? ImplicitName(item.Expression), scope);
            Visit(item.Expression, own ? decrypted : QueryUse.BareProjection, scope);
        }
    }

    // The name Cosmos gives an unaliased item: the last property name of a reference.
    private static string? ImplicitName(SqlExpression expression) => expression switch
    {
        SqlMember member => member.Name,
        SqlName name => name.Name,
        _ => null,
    };

    private void VisitIfPresent(SqlExpression? expression, Dictionary<string, ResolvedPath> scope)
    {
        if (expression is not null)
        {
            Visit(expression, QueryUse.Other, scope);
        }
    }

    private void Bind(SqlFromSource source, Dictionary<string, ResolvedPath> scope)
    {
        ResolvedPath target;
        switch (source.Collection)
        {
            case SqlPathCollection path:
                // The root of a path is an alias bound before, or else the container (any name: c, root, ...).
                target = scope.TryGetValue(path.Root, out ResolvedPath? bound) ? bound : ResolvedPath.Document;
                foreach (string? segment in path.Segments)
                {
                    target = target.Append(segment is null ? PathStep.Element : PathStep.Property(segment));
                }
                break;
            case SqlSubqueryCollection subquery:
                target = AnalyzeQuery(subquery.Query, scope, outermost: false, asCollection: true);
                break;
            default:
                throw new InvalidOperationException("Unknown collection.");
        }

        if (source.Iterates)
        {
            target = target.Append(PathStep.Element);
        }

        CheckCollection(target, source.Iterates ? "an iteration with IN" : "a FROM or JOIN source");

        if (source.Alias is not null)
        {
            scope[source.Alias] = target;
        }
    }

    // Iterating or aliasing inside an encrypted value reaches into a ciphertext string. Iterating a value that holds
    // cells (JOIN t IN c.cards of /cards/[]/number) is fine: the uses of the alias are checked where they occur.
    private void CheckCollection(ResolvedPath target, string operation)
    {
        if (target.IsKnown && target.Segments.Count > 1 && _policy.Classify(target.Segments) is { Kind: PolicyPositionKind.Inside } inside)
        {
            throw QueryRefusals.Inside(_policy.GetPath(inside.RuleIndex), operation);
        }
    }
}

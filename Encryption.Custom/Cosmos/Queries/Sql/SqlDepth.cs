namespace Encryption.Custom.Cosmos.Queries.Sql;

/// <summary>
/// Measures a parsed query's tree without recursion and refuses one deeper than <see cref="SqlLimits.MaxDepth"/>.
/// The parser bounds its own recursion, but a chain of a left-associative operator (<c>a - b - c ...</c>,
/// <c>c.a.b.c ...</c>) is built by a loop into a tree as deep as the chain is long, and the analyzer walks that
/// tree recursively: the tree is checked before anyone walks it.
/// </summary>
internal static class SqlDepth
{
    /// <exception cref="NotSupportedException">The tree is deeper than <see cref="SqlLimits.MaxDepth"/>.</exception>
    public static void Check(SqlQuery query)
    {
        var pending = new Stack<(object Node, int Depth)>();
        pending.Push((query, 1));
        while (pending.TryPop(out (object Node, int Depth) item))
        {
            if (item.Depth > SqlLimits.MaxDepth)
            {
                throw SqlLimits.TooDeep();
            }

            int next = item.Depth + 1;
            foreach (object? child in Children(item.Node))
            {
                if (child is not null)
                {
                    pending.Push((child, next));
                }
            }
        }
    }

    private static IEnumerable<object?> Children(object node)
    {
        switch (node)
        {
            case SqlQuery query:
                yield return query.Select.Top;
                foreach (SqlSelectItem selected in query.Select.Items)
                {
                    yield return selected.Expression;
                }

                yield return query.From?.Collection;
                foreach (SqlFromSource join in query.Joins)
                {
                    yield return join.Collection;
                }

                yield return query.Where;
                foreach (SqlExpression group in query.GroupBy)
                {
                    yield return group;
                }

                foreach (SqlOrderItem order in query.OrderBy)
                {
                    yield return order.Expression;
                }

                yield return query.Offset;
                yield return query.Limit;
                break;
            case SqlSubqueryCollection collection:
                yield return collection.Query;
                break;
            case SqlSubquery subquery:
                yield return subquery.Query;
                break;
            case SqlMember member:
                yield return member.Target;
                break;
            case SqlIndexer indexer:
                yield return indexer.Target;
                yield return indexer.Index;
                break;
            case SqlUnary unary:
                yield return unary.Operand;
                break;
            case SqlBinary binary:
                yield return binary.Left;
                yield return binary.Right;
                break;
            case SqlBetween between:
                yield return between.Value;
                yield return between.Low;
                yield return between.High;
                break;
            case SqlIn list:
                yield return list.Value;
                foreach (SqlExpression entry in list.Items)
                {
                    yield return entry;
                }

                break;
            case SqlLike like:
                yield return like.Value;
                yield return like.Pattern;
                yield return like.Escape;
                break;
            case SqlConditional conditional:
                yield return conditional.Condition;
                yield return conditional.WhenTrue;
                yield return conditional.WhenFalse;
                break;
            case SqlCall call:
                foreach (SqlExpression argument in call.Arguments)
                {
                    yield return argument;
                }

                break;
            case SqlArrayLiteral array:
                foreach (SqlExpression entry in array.Items)
                {
                    yield return entry;
                }

                break;
            case SqlObjectLiteral obj:
                foreach (SqlObjectProperty property in obj.Properties)
                {
                    yield return property.Value;
                }

                break;
        }
    }
}

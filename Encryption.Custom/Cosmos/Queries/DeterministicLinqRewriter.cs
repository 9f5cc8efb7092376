using System.Collections;
using System.Diagnostics.CodeAnalysis;
using System.Linq.Expressions;
using System.Reflection;
using Microsoft.Azure.Cosmos;
using Microsoft.Azure.Cosmos.Linq;

namespace Encryption.Custom.Cosmos.Queries;

/// <summary>
/// Rewrites a LINQ query so that <c>==</c>, <c>!=</c> and <c>Contains</c> on a deterministically encrypted property
/// compare with ciphertext (docs/queries.md): the value is serialized with the client's serializer and encrypted
/// as a document property would be, under every key the policy accepts (so a rotation finds documents under both
/// keys: the comparison becomes <c>IN</c>). Everything else is left to <see cref="QueryGuard"/>, which refuses
/// what the service cannot evaluate on encrypted properties.
/// </summary>
/// <remarks>
/// A property's stored name comes from the SDK's own translation of <c>x =&gt; x.Property</c>, so naming policies and
/// attributes are honoured. Keys are resolved synchronously: a cached key costs nothing, otherwise the thread waits
/// once (as the processors' synchronous entry points do).
/// </remarks>
[UnconditionalSuppressMessage("AOT", "IL3050", Justification = "Runs only on LINQ queries of the Cosmos LINQ provider, which itself builds and compiles expression trees by reflection.")]
[UnconditionalSuppressMessage("Trimming", "IL2026", Justification = "As above: the caller's query already depends on the Cosmos LINQ provider's reflection.")]
[UnconditionalSuppressMessage("Trimming", "IL2060", Justification = "Queryable.Select and Enumerable.Contains, instantiated over the query's own types.")]
internal sealed class DeterministicLinqRewriter : ExpressionVisitor
{
    private static readonly MethodInfo s_contains = typeof(Enumerable).GetMethods()
        .Single(m => m.Name == nameof(Enumerable.Contains) && m.GetParameters().Length == 2)
        .MakeGenericMethod(typeof(object));

    private static readonly MethodInfo s_toQueryDefinition = typeof(CosmosLinqExtensions).GetMethods()
        .Single(m => m.Name == nameof(CosmosLinqExtensions.ToQueryDefinition) && m.GetParameters().Length == 1);

    private readonly EncryptionContainer _container;
    private readonly ContainerEncryptionPolicy _policy;
    private readonly IQueryProvider _provider;
    private readonly Expression _root;
    private bool _changed;

    private DeterministicLinqRewriter(EncryptionContainer container, ContainerEncryptionPolicy policy, IQueryable query)
    {
        _container = container;
        _policy = policy;
        _provider = query.Provider;
        _root = query.Expression;
    }

    /// <summary>The query with deterministic comparisons encrypted, or <paramref name="query"/> when there are none.</summary>
    public static IQueryable<T> Rewrite<T>(EncryptionContainer container, IQueryable<T> query)
    {
        if (container.Policy is not { EncryptsWrites: true } policy || policy.DeterministicPaths.Count == 0)
        {
            return query;
        }

        var rewriter = new DeterministicLinqRewriter(container, policy, query);
        Expression rewritten = rewriter.Visit(query.Expression);
        return rewriter._changed ? query.Provider.CreateQuery<T>(rewritten) : query;
    }

    protected override Expression VisitBinary(BinaryExpression node)
    {
        if (node.NodeType is ExpressionType.Equal or ExpressionType.NotEqual)
        {
            if (TryRewriteComparison(node.Left, node.Right, node.NodeType, out Expression? left)
                || TryRewriteComparison(node.Right, node.Left, node.NodeType, out left))
            {
                return left!;
            }
        }

        return base.VisitBinary(node);
    }

    protected override Expression VisitMethodCall(MethodCallExpression node)
    {
        // list.Contains(x.P) (instance) or Enumerable.Contains(list, x.P) / list.Contains(x.P) (extension).
        if (node.Method.Name == nameof(Enumerable.Contains))
        {
            (Expression? list, Expression? item) = node.Object is not null && node.Arguments.Count == 1
                ? (node.Object, node.Arguments[0])
                : node.Object is null && node.Arguments.Count == 2 ? (node.Arguments[0], node.Arguments[1]) : (null, null);
            if (list is not null && item is not null && !HasParameter(list) && DeterministicPathOf(item) is string path)
            {
                list = WithoutSpanConversion(list);
                var cipherTexts = new List<object>();
                foreach (object? value in (IEnumerable)Evaluate(list)!)
                {
                    cipherTexts.AddRange(Encrypt(value, path));
                }

                _changed = true;
                return Expression.Call(s_contains, Expression.Constant(cipherTexts.ToArray()), Expression.Convert(item, typeof(object)));
            }
        }

        return base.VisitMethodCall(node);
    }

    // Since C# 14, array.Contains(x) binds to MemoryExtensions.Contains(ReadOnlySpan<T>, T): the tree then holds the
    // array converted to a span, which cannot be evaluated (a span cannot be boxed). The values are the array's.
    private static Expression WithoutSpanConversion(Expression list)
    {
        while (IsSpan(list.Type))
        {
            switch (list)
            {
                case MethodCallExpression { Arguments.Count: 1 } conversion when !IsSpan(conversion.Arguments[0].Type):
                    list = conversion.Arguments[0];
                    break;
                case UnaryExpression { NodeType: ExpressionType.Convert } conversion:
                    list = conversion.Operand;
                    break;
                default:
                    return list;
            }
        }

        return list;
    }

    private static bool IsSpan(Type type) =>
        type.IsGenericType && (type.GetGenericTypeDefinition() == typeof(ReadOnlySpan<>) || type.GetGenericTypeDefinition() == typeof(Span<>));

    private bool TryRewriteComparison(Expression member, Expression operand, ExpressionType comparison, out Expression? result)
    {
        result = null;
        if (HasParameter(operand) || DeterministicPathOf(member) is not string path)
        {
            return false;
        }

        object[] cipherTexts = Encrypt(Evaluate(operand), path);
        Expression test = cipherTexts.Length == 1
            ? Expression.Equal(Expression.Convert(member, typeof(object)), Expression.Constant(cipherTexts[0], typeof(object)))
            : Expression.Call(s_contains, Expression.Constant(cipherTexts), Expression.Convert(member, typeof(object)));
        result = comparison == ExpressionType.Equal ? test : Expression.Not(test);
        _changed = true;
        return true;
    }

    // The policy path of x.Property when it is encrypted deterministically, else null.
    private string? DeterministicPathOf(Expression expression)
    {
        while (expression is UnaryExpression { NodeType: ExpressionType.Convert or ExpressionType.ConvertChecked } convert)
        {
            expression = convert.Operand;
        }

        if (expression is not MemberExpression { Expression: ParameterExpression parameter } member)
        {
            return null;
        }

        string? name = StoredName(parameter, member);
        if (name is null)
        {
            return null;
        }

        string path = "/" + name;
        foreach (string deterministic in _policy.DeterministicPaths)
        {
            if (string.Equals(deterministic, path, StringComparison.Ordinal))
            {
                return path;
            }
        }

        return null;
    }

    // The SDK translates x => x.Property to SELECT VALUE root["name"] FROM root (or root.name): the stored name.
    private string? StoredName(ParameterExpression parameter, MemberExpression member)
    {
        LambdaExpression selector = Expression.Lambda(member, parameter);
        MethodInfo select = typeof(Queryable).GetMethods()
            .First(m => m.Name == nameof(Queryable.Select) && m.GetParameters()[1].ParameterType.GetGenericArguments()[0].GetGenericArguments().Length == 2)
            .MakeGenericMethod(parameter.Type, member.Type);
        // The query's own root (same provider, same serializer options), when the lambda ranges over its items.
        Expression root = RootOf(_root);
        if (root.Type != typeof(IQueryable<>).MakeGenericType(parameter.Type) && !typeof(IQueryable<>).MakeGenericType(parameter.Type).IsAssignableFrom(root.Type))
        {
            return null;
        }

        IQueryable projected = _provider.CreateQuery(Expression.Call(select, root, Expression.Quote(selector)));
        var definition = (QueryDefinition)s_toQueryDefinition.MakeGenericMethod(member.Type).Invoke(null, [projected])!;
        string text = definition.QueryText;
        int bracket = text.IndexOf("[\"", StringComparison.Ordinal);
        if (bracket >= 0)
        {
            int end = text.IndexOf("\"]", bracket + 2, StringComparison.Ordinal);
            return end > bracket ? text[(bracket + 2)..end] : null;
        }

        int dot = text.IndexOf("root.", StringComparison.Ordinal);
        if (dot < 0)
        {
            return null;
        }

        int start = dot + 5;
        int stop = start;
        while (stop < text.Length && (char.IsLetterOrDigit(text[stop]) || text[stop] == '_'))
        {
            stop++;
        }

        return text[start..stop];
    }

    private static Expression RootOf(Expression expression)
    {
        while (expression is MethodCallExpression { Arguments.Count: > 0 } call)
        {
            expression = call.Arguments[0];
        }

        return expression;
    }

    private object[] Encrypt(object? value, string path)
    {
        if (value is null)
        {
            // Null is stored in plaintext, never encrypted.
            return [null!];
        }

        var parameters = new QueryDefinition("SELECT 1");
        parameters.AddParameterAsync("@v", value, path, _container).GetAwaiter().GetResult();
        return [.. parameters.GetQueryParameters().Select(p => p.Value)];
    }

    private static object? Evaluate(Expression expression) =>
        expression is ConstantExpression constant
            ? constant.Value
            : Expression.Lambda(expression).Compile().DynamicInvoke();

    private static bool HasParameter(Expression expression)
    {
        var finder = new ParameterFinder();
        finder.Visit(expression);
        return finder.Found;
    }

    private sealed class ParameterFinder : ExpressionVisitor
    {
        public bool Found { get; private set; }

        protected override Expression VisitParameter(ParameterExpression node)
        {
            Found = true;
            return node;
        }
    }
}

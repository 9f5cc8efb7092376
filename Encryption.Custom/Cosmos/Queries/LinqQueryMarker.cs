using System.Diagnostics.CodeAnalysis;
using System.Linq.Expressions;
using System.Reflection;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Queries;

/// <summary>
/// Marks the LINQ queries of an encryption container. <see cref="EncryptionContainer.GetItemLinqQueryable{T}"/>
/// returns the SDK's queryable with one extra <c>Where</c> whose predicate calls <see cref="Refuse"/>: the SDK
/// evaluates such a call while translating, so its own <c>ToFeedIterator()</c>, <c>ToStreamIterator()</c> and
/// synchronous execution fail before anything is sent, with a message naming
/// <see cref="EncryptionContainerExtensions.ToEncryptionFeedIterator{T}"/> (they would send plaintext operands and
/// hand back ciphertext). <c>ToEncryptionFeedIterator</c> removes the marker, takes the request options and
/// continuation it carries, and sends the SDK's translation through the container's query guard.
/// </summary>
[UnconditionalSuppressMessage("AOT", "IL3050", Justification = "Runs only on LINQ queries of the Cosmos LINQ provider, which itself builds and compiles expression trees by reflection.")]
[UnconditionalSuppressMessage("Trimming", "IL2026", Justification = "As above: the caller's query already depends on the Cosmos LINQ provider's reflection.")]
[UnconditionalSuppressMessage("Trimming", "IL2060", Justification = "Queryable.Where instantiated over the query's own type.")]
internal static class LinqQueryMarker
{
    private static readonly MethodInfo s_refuse = typeof(LinqQueryMarker).GetMethod(nameof(Refuse), BindingFlags.Static | BindingFlags.NonPublic)!;

    /// <summary>The message of every way to run the query other than the encryption container's.</summary>
    internal const string Message =
        "This LINQ query comes from an encryption container: run it with container.ToEncryptionFeedIterator(query) or container.ToEncryptionStreamIterator(query), which encrypt its comparisons with deterministic paths and decrypt its results. The Cosmos SDK's ToFeedIterator, ToStreamIterator and synchronous execution would send it unencrypted and return ciphertext (docs/queries.md).";

    /// <summary>The SDK's queryable, marked.</summary>
    public static IOrderedQueryable<T> Mark<T>(IOrderedQueryable<T> query, LinqQueryState state)
    {
        ParameterExpression item = Expression.Parameter(typeof(T), "item");
        Expression<Func<T, bool>> predicate = Expression.Lambda<Func<T, bool>>(Expression.Call(s_refuse, Expression.Constant(state)), item);
        return (IOrderedQueryable<T>)query.Where(predicate);
    }

    /// <summary>
    /// Removes the marker (and writes <c>string.Equals(a, b)</c> as <c>a == b</c>, which the SDK translates); returns
    /// the query without it and the state, or <see langword="null"/> when it is not marked.
    /// </summary>
    public static LinqQueryState? Unmark<T>(IQueryable<T> query, out IQueryable<T> unmarked)
    {
        var remover = new Remover();
        Expression expression = remover.Visit(query.Expression);
        unmarked = remover.State is null ? query : query.Provider.CreateQuery<T>(expression);
        return remover.State;
    }

    // Called by the SDK's partial evaluation of the predicate, never by a query this library sends.
    private static bool Refuse(LinqQueryState state)
    {
        _ = state;
        throw new NotSupportedException(Message);
    }

    private sealed class Remover : ExpressionVisitor
    {
        public LinqQueryState? State { get; private set; }

        protected override Expression VisitMethodCall(MethodCallExpression node)
        {
            if (node.Method.DeclaringType == typeof(Queryable) && node.Method.Name == nameof(Queryable.Where)
                && node.Arguments[1] is UnaryExpression { Operand: LambdaExpression { Body: MethodCallExpression call } }
                && call.Method == s_refuse
                && call.Arguments[0] is ConstantExpression { Value: LinqQueryState state })
            {
                State = state;
                return Visit(node.Arguments[0]);
            }

            // string.Equals(a, b) is a == b; the SDK cannot translate the static form (it throws ArgumentNullException).
            if (node.Method.DeclaringType == typeof(string) && node.Method.Name == nameof(string.Equals) && node.Method.IsStatic
                && node.Arguments.Count == 2)
            {
                return Expression.Equal(Visit(node.Arguments[0]), Visit(node.Arguments[1]));
            }

            return base.VisitMethodCall(node);
        }
    }
}

/// <summary>What <see cref="EncryptionContainer.GetItemLinqQueryable{T}"/> was given, for the query that is finally sent.</summary>
/// <param name="Container">The encryption container the query belongs to.</param>
/// <param name="ContinuationToken">The continuation token.</param>
/// <param name="RequestOptions">The request options.</param>
internal sealed record LinqQueryState(EncryptionContainer Container, string? ContinuationToken, QueryRequestOptions? RequestOptions);

using Encryption.Custom.Cosmos.Queries.Analysis;
using Encryption.Custom.Cosmos.Queries.Sql;
using Encryption.Custom.Cosmos.Queries.Tokens;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Queries;

/// <summary>
/// The one place that decides, before anything is sent, whether a query can work on the container's encrypted
/// properties (docs/queries.md), for SQL text, <see cref="QueryDefinition"/>s and LINQ (as the SDK translates it).
/// The query is parsed (<see cref="SqlParser"/>), every reference is resolved through aliases and subqueries to a
/// document path, classified on the policy's selector tree (plaintext, a cell, a value holding cells, inside a cell;
/// <see cref="QueryPolicyPaths.Classify"/>), and every use of a policy path is checked (<see cref="QueryAnalyzer"/>):
/// equality with a parameter or literal on a deterministic selector (top-level or nested), <c>IS_DEFINED</c>,
/// <c>IS_NULL</c>, <c>COUNT</c>, projection (where the container can decrypt it: at its own place beside <c>_ei</c>,
/// and <c>_ex</c> and the id for format 101 and bound documents) and <c>DISTINCT</c> on a deterministic path are
/// allowed, anything else is refused. The operands of allowed
/// comparisons are encrypted under every accepted key (<see cref="QueryOperandEncryptor"/>, <see cref="QueryRewriter"/>).
/// Text the parser cannot read is refused when it mentions a policy property name anywhere, and sent untouched otherwise.
/// </summary>
internal sealed class QueryGuard
{
    private readonly QueryPolicyPaths? _paths;
    private readonly QueryOperandEncryptor? _encryptor;
    private readonly ContainerEncryptionPolicy? _policy;
    private readonly Encryptor? _keys;
    private readonly CosmosSerializer? _serializer;

    /// <param name="policy">The container's policy; queries are checked only when it encrypts writes.</param>
    /// <param name="encryptor">Supplies the keys for operands (none: operands are left as they are, for checks alone).</param>
    /// <param name="serializer">Serializes parameter values as the client does.</param>
    public QueryGuard(ContainerEncryptionPolicy? policy, Encryptor? encryptor = null, CosmosSerializer? serializer = null)
    {
        _paths = policy is { EncryptsWrites: true } ? new QueryPolicyPaths(policy) : null;
        _encryptor = _paths is not null && encryptor is not null && serializer is not null ? new QueryOperandEncryptor(_paths, encryptor, serializer) : null;
        (_policy, _keys, _serializer) = _encryptor is not null ? (policy, encryptor, serializer) : (null, null, null);
    }

    /// <summary>
    /// As <see cref="Check(QueryDefinition, bool)"/>, with range and prefix conditions on token paths rewritten to token
    /// matches first (<see cref="TokenQueryRewriter"/>); <paramref name="recheck"/> is what the client checks on each
    /// decrypted row, or <see langword="null"/> when the query has no such condition.
    /// </summary>
    /// <exception cref="NotSupportedException">The query uses an encrypted path in a way that cannot be served.</exception>
    /// <exception cref="EncryptionException">A key is unavailable.</exception>
    public QueryDefinition Check(QueryDefinition queryDefinition, out TokenRecheck? recheck, bool fromLinq = false)
    {
        recheck = null;
        if (_policy is { Plan.HasQueryTokens: true } && queryDefinition is not null && !string.IsNullOrEmpty(queryDefinition.QueryText))
        {
            SqlQuery? query = null;
            try
            {
                query = SqlParser.Parse(queryDefinition.QueryText, out _);
            }
            catch (SqlSyntaxException)
            {
                // Left to the check below, which refuses unreadable text that mentions a policy path.
            }

            if (query is not null)
            {
                (queryDefinition, TokenPredicate[]? predicates) = TokenQueryRewriter.Rewrite(queryDefinition, query, _policy, _keys!, _serializer!);
                recheck = predicates is null ? null : new TokenRecheck(predicates);
            }
        }

        return Check(queryDefinition!, fromLinq);
    }

    /// <summary>Throws when <paramref name="queryText"/> uses an encrypted policy path in a way the service cannot evaluate.</summary>
    /// <exception cref="NotSupportedException">The query uses such a path; the message names it and says why.</exception>
    public void Check(string? queryText)
    {
        if (_paths is not null && !string.IsNullOrEmpty(queryText))
        {
            _ = Analyze(queryText, _paths);
        }
    }

    /// <summary>Checks <paramref name="queryDefinition"/> and returns what to send: itself, or a copy whose comparisons with deterministic paths hold ciphertext.</summary>
    /// <exception cref="NotSupportedException">The query uses an encrypted path in a way the service cannot evaluate.</exception>
    /// <exception cref="EncryptionException">A key is unavailable.</exception>
    /// <param name="queryDefinition">The query.</param>
    /// <param name="fromLinq">The SDK translated it from LINQ: its literals are the application's captured values (<see cref="MixedOperandUses"/>).</param>
    public QueryDefinition Check(QueryDefinition queryDefinition, bool fromLinq = false)
    {
        if (_paths is null || queryDefinition is null || string.IsNullOrEmpty(queryDefinition.QueryText))
        {
            return queryDefinition!;
        }

        IReadOnlyList<EncryptedComparison> comparisons = Analyze(queryDefinition.QueryText, _paths, out EnvelopeInsertion? envelope, fromLinq);
        if ((comparisons.Count == 0 || _encryptor is null) && envelope is null)
        {
            return queryDefinition;
        }

        if (_encryptor is null)
        {
            return QueryRewriter.Rewrite(queryDefinition, [], (_, _) => null, envelope);
        }

        var parameters = new Dictionary<string, object?>(StringComparer.Ordinal);
        foreach ((string name, object value) in queryDefinition.GetQueryParameters())
        {
            parameters[name] = value;
        }

        using QueryKeyLeases keys = _encryptor.LeaseKeys();
        return QueryRewriter.Rewrite(queryDefinition, comparisons, (comparison, operand) => _encryptor.Encrypt(operand, comparison.PathIndex, parameters, keys), envelope);
    }

    /// <summary>The ciphertext of <paramref name="value"/> for the deterministic <paramref name="path"/> under the current key (<see cref="EncryptionQueryDefinitionExtensions.AddParameterAsync"/>).</summary>
    internal ValueTask<string?> EncryptParameterAsync(object value, string path, CancellationToken cancellationToken) =>
        _encryptor is not null && _paths is not null && _paths.IndexOf(path) is int index and >= 0
            ? _encryptor.EncryptUnderCurrentKeyAsync(value, index, cancellationToken)
            : throw new InvalidOperationException("The container does not encrypt query parameters.");

    /// <summary>Parses and checks; returns the comparisons whose operands are to be encrypted.</summary>
    /// <exception cref="NotSupportedException">A policy path is used in a way the service cannot evaluate, or the text cannot be parsed and mentions one.</exception>
    internal static IReadOnlyList<EncryptedComparison> Analyze(string text, QueryPolicyPaths paths) => Analyze(text, paths, out _);

    /// <summary>As <see cref="Analyze(string, QueryPolicyPaths)"/>, with the envelope items the sent query adds to its SELECT list (<see cref="EnvelopeInsertion"/>).</summary>
    internal static IReadOnlyList<EncryptedComparison> Analyze(string text, QueryPolicyPaths paths, out EnvelopeInsertion? envelope, bool fromLinq = false)
    {
        envelope = null;
        SqlQuery query;
        IReadOnlyList<SqlToken> tokens;
        try
        {
            query = SqlParser.Parse(text, out tokens);
        }
        catch (SqlSyntaxException)
        {
            string? mentioned = paths.FindMentioned(text);
            return mentioned is null ? [] : throw QueryRefusals.Unparsed(mentioned);
        }

        IReadOnlyList<EncryptedComparison> comparisons = QueryAnalyzer.Analyze(query, tokens, paths, out envelope);
        MixedOperandUses.Check(text, tokens, comparisons, paths, literalsAreValues: fromLinq);
        return comparisons;
    }
}

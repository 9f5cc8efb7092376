using Encryption.Custom.Cosmos.Queries.Sql;

namespace Encryption.Custom.Cosmos.Queries.Analysis;

/// <summary>What a returned row must carry beside projected policy values, and adding it when the query does not.</summary>
internal sealed partial class QueryAnalyzer
{
    // The document's envelope travels with the projected values: c._ei under the name _ei, and what else a row needs
    // to be decrypted (the anchor c._ex of format 101, the id a bound cell is bound to; the partition key too, which
    // the guard cannot name before the container knows it: without it the container refuses the row).
    private bool HasEnvelope(IEnumerable<(SqlExpression Expression, string? Name)> items, IReadOnlyDictionary<string, ResolvedPath> scope)
    {
        if (_policy.Commits)
        {
            CheckCommittedRow(items, scope);
        }

        HashSet<string> names = EnvelopeNames(items, scope);
        return names.Contains("_ei") && (!_policy.RequiresAnchor || names.Contains("_ex")) && (!_policy.RequiresId || names.Contains("id"))
            && (!_policy.RequiresQueryTokens || names.Contains("_q"));
    }

    // A committing document's anchor covers which cells the document holds and in which order: a row that leaves out
    // an encrypted property, or lists them in another order than the document stores them (which the query cannot
    // know), fails that check when it is decrypted, with an error that reads like tampering. So on a committing
    // container encrypted properties come back only in whole documents; a projection of one is refused before
    // sending, naming the limitation.
    private void CheckCommittedRow(IEnumerable<(SqlExpression Expression, string? Name)> items, IReadOnlyDictionary<string, ResolvedPath> scope)
    {
        var returned = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        foreach ((SqlExpression expression, string? name) in items)
        {
            if (IsOwnName(expression, name, scope))
            {
                returned.Add(name!);
            }
        }

        string[] encrypted = [.. _policy.TopLevelNames.Where(returned.Contains)];
        if (encrypted.Length > 0)
        {
            throw QueryRefusals.CommittedProjection(encrypted);
        }
    }

    private static HashSet<string> EnvelopeNames(IEnumerable<(SqlExpression Expression, string? Name)> items, IReadOnlyDictionary<string, ResolvedPath> scope)
    {
        var names = new HashSet<string>(StringComparer.Ordinal);
        foreach ((SqlExpression expression, string? name) in items)
        {
            if (name is not null && IsReference(expression) && Resolve(expression, scope) is { IsKnown: true, Segments: [{ Name: string step }] } && step == name)
            {
                names.Add(name);
            }
        }

        return names;
    }

    /// <summary>
    /// For <c>SELECT c.address FROM c</c> (a policy value under its own name, without the envelope): adds
    /// <c>c._ei</c> and <c>c._ex</c> to the sent query, which the container's decryption then removes from each row.
    /// Not when the rows could not be decrypted anyway or the added items would change the result: a bound policy
    /// (the partition key is not known here, and an added id would stay in the row), <c>DISTINCT</c> (the envelope
    /// would take part in it), a FROM that is not the document, or an item already named like the envelope.
    /// </summary>
    private bool TryAddEnvelope(SqlQuery query, Dictionary<string, ResolvedPath> scope)
    {
        if (query.Select.Distinct || _policy.RequiresId
            || query.From is not { Collection: SqlPathCollection { Segments.Count: 0 }, Iterates: false, Alias: string alias }
            || !scope.TryGetValue(alias, out ResolvedPath? document) || document is not { IsKnown: true, Segments.Count: 0 })
        {
            return false;
        }

        var items = query.Select.Items.Select(i => (i.Expression, Name: i.Alias ?? ImplicitName(i.Expression))).ToList();
        if (!items.Any(i => IsOwnName(i.Expression, i.Name, scope)))
        {
            return false;
        }

        // The envelope under another name (c._ei AS e) says the query wants it as data: leave the query as written.
        if (items.Any(i => IsReference(i.Expression) && Resolve(i.Expression, scope) is { IsKnown: true, Segments: [{ Name: "_ei" or "_ex" or "_q" }] } && i.Name is not ("_ei" or "_ex" or "_q")))
        {
            return false;
        }

        HashSet<string> present = EnvelopeNames(items, scope);
        var missing = new List<string>();
        string[] envelope = _policy.RequiresQueryTokens ? ["_ei", "_ex", "_q"] : _policy.RequiresAnchor ? ["_ei", "_ex"] : ["_ei"];
        foreach (string name in envelope)
        {
            if (present.Contains(name))
            {
                continue;
            }

            if (items.Any(i => i.Name == name))
            {
                return false; // another value under the envelope's name
            }

            missing.Add(name);
        }

        _envelope = new EnvelopeInsertion(query.Select.Items[0].Expression.Start, string.Concat(missing.Select(name => $"{alias}.{name}, ")));
        return true;
    }
}

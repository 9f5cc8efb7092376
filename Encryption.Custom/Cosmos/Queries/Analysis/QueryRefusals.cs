namespace Encryption.Custom.Cosmos.Queries.Analysis;

/// <summary>
/// The messages of refused queries: each names the path, the operation and why the service could not evaluate it
/// on ciphertext (never a value: literals and parameters may be plaintext).
/// </summary>
internal static class QueryRefusals
{
    private const string Advice = "Filter on other properties and check it after reading (docs/queries.md).";

    public static NotSupportedException Randomized(string path, string operation, string algorithm) => new(
        $"The query uses '{path}' in {operation}, but the container's encryption policy encrypts '{path}' with randomized encryption ({algorithm}): the service only sees ciphertexts that differ even for equal values, so the query could never match or sort correctly. {Advice} Encrypt '{path}' deterministically if equality queries are worth what that reveals.");

    public static NotSupportedException Deterministic(string path, string operation) => new(
        $"The query uses '{path}' in {operation}: the container's encryption policy encrypts '{path}' deterministically, so the service can only compare it for equality (=, !=, <>, IN, NOT IN) with a parameter or literal that the library encrypts, test it with IS_DEFINED or IS_NULL, count it or project it; anything else would quietly return wrong results. {Advice}");

    public static NotSupportedException Distinct(string path) => new(
        $"The query returns '{path}', which the container's encryption policy encrypts, in a SELECT DISTINCT: the container decrypts it only in a row that carries the document's envelope (_ei), and the envelope takes part in DISTINCT, but it differs between documents that hold the same value (it lists each document's encrypted paths), so equal values could come back more than once where a plaintext container returns them once. Select the rows without DISTINCT and remove duplicates after reading (docs/queries.md).");

    public static NotSupportedException Inside(string path, string operation) => new(
        $"The query reaches into '{path}' ({operation}), which the container's encryption policy encrypts: the service holds one ciphertext string there, with no properties or elements to reach. {Advice}");

    public static NotSupportedException WholeDocument(string path, string operation) => new(
        $"The query uses the whole document in {operation}, and the document holds '{path}', which the container's encryption policy encrypts: the service would compute with its ciphertext. Use the properties the computation needs (docs/queries.md).");

    public static NotSupportedException Computed(string path, string operation) => new(
        $"The query reads a property whose name is computed when the query runs ({operation}); it could be '{path}', which the container's encryption policy encrypts, so the guard cannot tell whether the query works. Name the property in the query text (docs/queries.md).");

    public static NotSupportedException Unattributable(string path, string operation) => new(
        $"The query uses a value named like '{path}' ({operation}) that the guard cannot trace to a document path (an unbound name, or a subquery's computed rows): it may be the encrypted '{path}', so the query is refused rather than run on ciphertext. Refer to the property through the FROM alias (docs/queries.md).");

    public static NotSupportedException BareProjection(string path, string returned, string topLevelName, string envelope) => new(
        $"The query returns '{returned}', which is or holds '{path}' that the container's encryption policy encrypts, as a bare value (SELECT VALUE), below the top level of the row, under another name, or without {envelope}: the container decrypts a policy value only at its own position in a row that carries the document's envelope, so the application would receive ciphertext (or unchecked plaintext). Select the document (SELECT * or SELECT VALUE c), or the top-level property under its own name together with {envelope} (for example SELECT c.{topLevelName}, {envelope}; docs/queries.md).");

    public static NotSupportedException Holds(string returned, string path, string operation) => new(
        $"The query uses '{returned}' in {operation}, and it holds '{path}', which the container's encryption policy encrypts: the service would compute with its ciphertext. Use the plaintext properties beside it, or compare the encrypted value itself where its selector allows (for an array, EXISTS(SELECT VALUE t FROM t IN c.<array> WHERE t.<property> = @p) on a deterministic selector; docs/queries.md).");

    public static NotSupportedException Ambiguous(string path) => new(
        $"The query compares '{path}' next to an operator whose precedence against the comparison is not certain: put the comparison in parentheses so that the library encrypts exactly the value '{path}' is compared with (docs/queries.md).");

    public static NotSupportedException CommittedProjection(IReadOnlyList<string> returned) => new(
        $"The query returns {string.Join(", ", returned.Select(name => $"'{name}'"))}, which the container's encryption policy encrypts, in a projection: the policy commits each document to the cells it holds and the order it holds them in (Commit), and a projection can leave some out or list them in another order than the document stores them, so its rows could not be checked and would fail as if tampered with. On a committing container select whole documents (SELECT * or SELECT VALUE c) and read the properties from them (docs/queries.md, \"Projections\").");

    public static NotSupportedException Unparsed(string path) => new(
        $"The query text mentions '{path}', which the container's encryption policy encrypts, and the library cannot parse the query to check how it is used; it refuses the query rather than let it run on ciphertext. Write it in the Cosmos query grammar described in docs/queries.md.");
}

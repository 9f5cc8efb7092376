using Encryption.Custom.Cosmos.Queries.Sql;

namespace Encryption.Custom.Cosmos.Queries.Analysis;

/// <summary>
/// An allowed comparison of a deterministic policy path with values the library encrypts before sending:
/// <c>ref = v</c>, <c>ref != v</c>, <c>ref &lt;&gt; v</c> (either side) or <c>ref [NOT] IN (v, ...)</c>.
/// </summary>
/// <param name="Node">The whole comparison (its text is replaced when sending).</param>
/// <param name="Reference">The reference to the policy path.</param>
/// <param name="PathIndex">The policy path.</param>
/// <param name="Operands">The parameters and literals compared with (null literals are left out: null is never encrypted).</param>
/// <param name="Others">Null literals of an IN list, kept as they are.</param>
/// <param name="Negated">For <c>!=</c>, <c>&lt;&gt;</c> and <c>NOT IN</c>.</param>
internal sealed record EncryptedComparison(
    SqlExpression Node,
    SqlExpression Reference,
    int PathIndex,
    IReadOnlyList<SqlExpression> Operands,
    IReadOnlyList<SqlExpression> Others,
    bool Negated);

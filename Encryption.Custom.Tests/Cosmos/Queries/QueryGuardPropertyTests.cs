using Encryption.Custom.Cosmos.Queries;
using Encryption.Custom.Cosmos.Queries.Analysis;
using FsCheck;
using FsCheck.Fluent;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Queries;

/// <summary>
/// Generated queries over the policy of <see cref="QueryGuardTests"/>: the guard refuses exactly the queries whose
/// generator put a policy path in a position that is not allowed, and an allowed query, once rewritten, names no
/// operand that was compared with a policy path (so none is sent in plaintext).
/// </summary>
public sealed class QueryGuardPropertyTests
{
    private static readonly QueryPolicyPaths s_paths = new(QueryGuardTests.Policy);

    // How a policy path may be spelled: every spelling is the path (ignoring case, brackets, escapes).
    private static readonly string[] s_spellings = ["{0}.{1}", "{0}[\"{1}\"]", "{0}['{1}']", "{0}.{2}", "{0}[\"{3}\"]"];

    [Fact]
    public void GeneratedQueries_AreRefusedExactlyWhenTheyUseAPolicyPathOutsideTheAllowedPositions()
    {
        int allowed = 0;
        int refusedCount = 0;
        Prop.ForAll(Queries().ToArbitrary(), generated =>
        {
            bool refused;
            IReadOnlyList<EncryptedComparison> comparisons = [];
            try
            {
                comparisons = QueryGuard.Analyze(generated.Text, s_paths);
                refused = false;
            }
            catch (NotSupportedException)
            {
                refused = true;
            }

            if (refused != !generated.Allowed)
            {
                return false.Label($"{generated.Text}: expected {(generated.Allowed ? "allowed" : "refused")}");
            }

            if (refused)
            {
                refusedCount++;
                return true.ToProperty();
            }

            allowed++;
            QueryDefinition definition = new(generated.Text);
            foreach (string name in generated.Parameters)
            {
                definition = definition.WithParameter(name, "plain");
            }

            QueryDefinition sent = QueryRewriter.Rewrite(definition, comparisons, (_, _) => ["cipher0", "cipher1"]);
            bool leaks = sent.QueryText.Contains("@s", StringComparison.Ordinal)
                || sent.QueryText.Contains("'secret", StringComparison.Ordinal)
                || sent.GetQueryParameters().Any(p => p.Name.StartsWith("@s", StringComparison.Ordinal));
            return (!leaks).Label($"{generated.Text} sent as {sent.QueryText}");
        }).Check(Config.QuickThrowOnFailure.WithMaxTest(3000));

        // Both sides of the rule were exercised.
        Assert.InRange(allowed, 50, 3000);
        Assert.InRange(refusedCount, 50, 3000);
    }

    private sealed record Generated(string Text, bool Allowed, IReadOnlyList<string> Parameters);

    private sealed record Part(string Text, bool Allowed, IReadOnlyList<string> Parameters);

    private static Gen<Generated> Queries() =>
        from alias in Gen.Elements("c", "root", "r")
        from filter in Predicate(alias, 2)
        from projection in Projection(alias)
        from order in Gen.OneOf(Gen.Constant(new Part("", true, [])), Reference(alias).Select(r => new Part($" ORDER BY {r.Text}", r.Path is null, [])))
        select new Generated(
            $"SELECT {projection.Text} FROM {alias} WHERE {filter.Text}{order.Text}",
            filter.Allowed && projection.Allowed && order.Allowed,
            [.. filter.Parameters]);

    // A reference: to a plain property (Path null) or to a policy path (its name, deterministic or not).
    private sealed record Ref(string Text, string? Path, bool Deterministic, bool OwnName);

    private static Gen<Ref> Reference(string alias) =>
        Gen.OneOf(
            Gen.Elements("id", "name", "tags", "address").Select(name => new Ref($"{alias}.{name}", null, false, true)),
            from path in Gen.Elements(("ssn", true), ("age", true), ("notes", false), ("card", false))
            from spelling in Gen.Choose(0, s_spellings.Length - 1)
            select new Ref(string.Format(s_spellings[spelling], alias, path.Item1, path.Item1.ToUpperInvariant(), Escape(path.Item1)), path.Item1, path.Item2, spelling != 3));

    private static string Escape(string name) => "\\u" + ((int)name[0]).ToString("x4") + name[1..];

    private static Gen<Part> Operand(bool policy, int index)
    {
        // Operands compared with a policy path are named @s…/'secret…' so that a leak is visible after the rewrite.
        string prefix = policy ? "s" : "p";
        return Gen.OneOf(
            Gen.Constant(new Part($"@{prefix}{index}", true, [$"@{prefix}{index}"])),
            Gen.Constant(new Part(policy ? $"'secret{index}'" : $"'plain{index}'", true, [])),
            Gen.Constant(new Part("42", true, [])),
            Gen.Constant(new Part($"LOWER(@{prefix}{index})", false, [$"@{prefix}{index}"])),
            Gen.Constant(new Part($"@{prefix}{index} || 'x'", false, [$"@{prefix}{index}"])));
    }

    private static Gen<Part> Atom(string alias) =>
        from reference in Reference(alias)
        from kind in Gen.Choose(0, 9)
        from index in Gen.Choose(0, 99)
        from operand in Operand(reference.Path is not null, index)
        from second in Operand(reference.Path is not null, index + 100)
        select kind switch
        {
            0 => Compare(reference, "=", operand, equality: true),
            1 => Compare(reference, "!=", operand, equality: true),
            2 => new Part($"{operand.Text} = {reference.Text}", reference.Path is null || (reference.Deterministic && operand.Allowed), operand.Parameters),
            3 => new Part($"{reference.Text} IN ({operand.Text}, {second.Text})", reference.Path is null || (reference.Deterministic && operand.Allowed && second.Allowed), [.. operand.Parameters, .. second.Parameters]),
            4 => new Part($"{reference.Text} NOT IN ({operand.Text})", reference.Path is null || (reference.Deterministic && operand.Allowed), operand.Parameters),
            5 => Compare(reference, ">", operand, equality: false),
            6 => new Part($"STARTSWITH({reference.Text}, {operand.Text})", reference.Path is null, operand.Parameters),
            7 => new Part($"IS_DEFINED({reference.Text})", true, []),
            8 => new Part($"{reference.Text} BETWEEN {operand.Text} AND {second.Text}", reference.Path is null, [.. operand.Parameters, .. second.Parameters]),
            _ => new Part($"IS_NULL({reference.Text})", true, []),
        };

    private static bool Allowed(Ref reference, bool equality) => reference.Path is null || (equality && reference.Deterministic);

    private static Part Compare(Ref reference, string op, Part operand, bool equality) =>
        new($"{reference.Text} {op} {operand.Text}", reference.Path is null || (Allowed(reference, equality) && operand.Allowed), operand.Parameters);

    private static Gen<Part> Predicate(string alias, int depth) =>
        depth == 0
            ? Atom(alias)
            : Gen.OneOf(
                Atom(alias),
                from left in Predicate(alias, depth - 1)
                from right in Predicate(alias, depth - 1)
                from op in Gen.Elements("AND", "OR")
                select new Part($"({left.Text}) {op} ({right.Text})", left.Allowed && right.Allowed, [.. left.Parameters, .. right.Parameters]),
                Predicate(alias, depth - 1).Select(inner => new Part($"NOT ({inner.Text})", inner.Allowed, inner.Parameters)));

    private static Gen<Part> Projection(string alias) =>
        Gen.OneOf(
            Gen.Constant(new Part("*", true, [])),
            Gen.Constant(new Part($"VALUE {alias}", true, [])),
            // A policy value is returned only under its own name beside _ei (decrypted; the guard adds _ei when it is
            // missing); bare, it is refused.
            Reference(alias).Select(r => new Part($"{alias}.id, {r.Text}", r.Path is null || r.OwnName, [])),
            Reference(alias).Select(r => new Part($"{alias}.id, {r.Text}, {alias}._ei", r.Path is null || r.OwnName, [])),
            // DISTINCT with a policy value is refused: the envelope the row needs takes part in it.
            Reference(alias).Select(r => new Part($"DISTINCT {r.Text}, {alias}._ei", r.Path is null, [])),
            Reference(alias).Select(r => new Part($"DISTINCT VALUE {r.Text}", r.Path is null, [])),
            Reference(alias).Select(r => new Part($"VALUE MAX({r.Text})", r.Path is null, [])),
            Reference(alias).Select(r => new Part($"VALUE COUNT({r.Text})", true, [])));
}

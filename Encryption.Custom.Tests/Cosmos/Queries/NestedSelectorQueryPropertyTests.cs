using Encryption.Custom.Cosmos.Queries;
using Encryption.Custom.Cosmos.Queries.Analysis;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Cosmos.Queries;

/// <summary>
/// Generated queries over a policy with nested selectors (<c>/address/city</c> deterministic, <c>/cards/[]/number</c>
/// and <c>/ssn</c> randomized): references of every depth, spelled with dots, brackets or another case, reached
/// directly or through a JOIN alias, in every kind of use. The guard must refuse exactly what a small table says
/// (written out here by hand, not derived from the guard's selector tree), and an allowed equality must be
/// encrypted for the selector the reference names.
/// </summary>
public sealed class NestedSelectorQueryPropertyTests
{
    private static readonly QueryPolicyPaths s_paths = new(new ContainerEncryptionPolicy(
        "dek",
        [
            new EncryptionPolicyIncludedPath("/address/city") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/cards/[]/number"),
            new EncryptionPolicyIncludedPath("/ssn"),
        ])
    { Bind = false });

    private enum Position
    {
        Plain,
        DeterministicCell,
        RandomizedCell,
        Holds,
        Inside,
    }

    // The table: each path, as segments (null = an array index), and what it is under the policy.
    private static readonly (string?[] Segments, Position Position, string? Selector)[] s_table =
    [
        (["name"], Position.Plain, null),
        (["address", "street"], Position.Plain, null),
        (["address", "city"], Position.DeterministicCell, "/address/city"),
        (["address"], Position.Holds, "/address/city"),
        (["address", "city", "x"], Position.Inside, "/address/city"),
        (["cards"], Position.Holds, "/cards/[]/number"),
        (["cards", null], Position.Holds, "/cards/[]/number"),
        (["cards", null, "number"], Position.RandomizedCell, "/cards/[]/number"),
        (["cards", null, "expiry"], Position.Plain, null),
        (["cards", "number"], Position.Plain, null), // a property of the array itself: nothing there
        (["ssn"], Position.RandomizedCell, "/ssn"),
        (["ssn", "x"], Position.Inside, "/ssn"),
    ];

    private enum Use
    {
        Equality,
        Existence,
        Range,
        Function,
        Ordering,
    }

    private sealed record Generated(string Text, bool Allowed, string? Selector, bool Encrypted);

    [Fact]
    public void GeneratedNestedQueries_AreRefusedExactlyWhenTheTableSaysSo_AndEqualitiesAreEncryptedForTheirSelector()
    {
        Prop.ForAll(Queries().ToArbitrary(), generated =>
        {
            IReadOnlyList<EncryptedComparison> comparisons;
            try
            {
                comparisons = QueryGuard.Analyze(generated.Text, s_paths);
            }
            catch (NotSupportedException refused)
            {
                return (!generated.Allowed && refused.Message.Contains($"'{generated.Selector}'", StringComparison.Ordinal))
                    .Label($"{generated.Text}: refused ({refused.Message})");
            }

            if (!generated.Allowed)
            {
                return false.Label($"{generated.Text}: allowed, expected refused");
            }

            return generated.Encrypted
                ? (comparisons.Count == 1 && s_paths.GetPath(comparisons[0].PathIndex) == generated.Selector).Label($"{generated.Text}: comparisons")
                : (comparisons.Count == 0).Label($"{generated.Text}: unexpected comparison");
        }).Check(Config.QuickThrowOnFailure.WithMaxTest(2000));
    }

    private static Gen<Generated> Queries() =>
        from entry in Gen.Elements(s_table)
        from viaJoin in Gen.Elements(false, true)
        from index in Gen.Choose(0, 3)
        from upper in Gen.Elements(false, true)
        from brackets in Gen.Elements(false, true)
        from use in Gen.Elements(Enum.GetValues<Use>())
        select Build(entry.Segments, entry.Position, entry.Selector, viaJoin, index, upper, brackets, use);

    private static Generated Build(string?[] segments, Position position, string? selector, bool viaJoin, int index, bool upper, bool brackets, Use use)
    {
        // Through a JOIN alias when the path passes through an array element: JOIN t IN c.cards, then t.number.
        bool join = viaJoin && segments.Length > 2 && segments[1] is null;
        string root = join ? "t" : "c";
        IEnumerable<string?> rest = join ? segments[2..] : segments;
        string reference = root + string.Concat(rest.Select((s, i) => Step(s, index, upper && i == 0, brackets)));
        string from = join ? $"FROM c JOIN t IN c.{segments[0]}" : "FROM c";
        string text = use switch
        {
            Use.Equality => $"SELECT VALUE c {from} WHERE {reference} = @p",
            Use.Existence => $"SELECT VALUE c {from} WHERE IS_DEFINED({reference})",
            Use.Range => $"SELECT VALUE c {from} WHERE {reference} > 3",
            Use.Function => $"SELECT VALUE c {from} WHERE STARTSWITH({reference}, 'x')",
            _ => $"SELECT VALUE c {from} ORDER BY {reference}",
        };
        bool allowed = position switch
        {
            Position.Plain => true,
            Position.DeterministicCell => use is Use.Equality or Use.Existence,
            Position.RandomizedCell or Position.Holds => use is Use.Existence,
            _ => false,
        };
        return new Generated(text, allowed, selector, allowed && use == Use.Equality && position == Position.DeterministicCell);
    }

    private static string Step(string? segment, int index, bool upper, bool brackets)
    {
        if (segment is null)
        {
            return $"[{index}]";
        }

        string name = upper ? segment.ToUpperInvariant() : segment;
        return brackets ? $"[\"{name}\"]" : "." + name;
    }
}

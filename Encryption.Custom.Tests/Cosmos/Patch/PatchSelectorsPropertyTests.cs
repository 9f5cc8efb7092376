using Encryption.Custom.Cosmos.Patch;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using FsCheck;
using FsCheck.Fluent;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Patch;

/// <summary>
/// The patch classifier (<see cref="PatchSelectors"/>, <see cref="PatchClassifier"/>) against an independent
/// oracle, <see cref="RulePath.RelateTo(RulePath, StringComparison)"/> applied to each selector in turn, over generated
/// selector sets and patch paths: every operation gets exactly one classification, and a path at or inside a
/// selected value (ignoring case) is never passed through.
/// </summary>
public sealed class PatchSelectorsPropertyTests
{
    private const string Dek = "dek1";

    private static readonly string[] s_exactSegments = ["a", "b", "c", "0", "2", "-"];
    private static readonly string[] s_anyCaseSegments = ["a", "b", "c", "A", "B", "0", "2", "-"];

    private static Gen<string[]> Selectors() =>
        (from count in Gen.Choose(1, 4)
         from selectors in Selector().ArrayOf(count)
         select selectors.Distinct(StringComparer.Ordinal).ToArray())
        .Where(IsValidPlan);

    private static Gen<string> Selector() =>
        from first in Gen.Elements("a", "b", "c")
        from depth in Gen.Choose(0, 3)
        from rest in Gen.Elements("a", "b", "c", "[]").ArrayOf(depth)
        select "/" + string.Join('/', rest.Prepend(first));

    private static Gen<string> PatchPath(string[] segments) =>
        from depth in Gen.Choose(1, 4)
        from parts in Gen.Elements(segments).ArrayOf(depth)
        where !SelectorRules.IsArrayIndex(parts[0])
        select "/" + string.Join('/', parts);

    private static bool IsValidPlan(string[] selectors)
    {
        try
        {
            EncryptionPlan.Create(Dek, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, selectors);
            return true;
        }
        catch (EncryptionException)
        {
            return false;
        }
    }

    private static PatchSelectors For(string[] selectors) =>
        PatchSelectors.For(EncryptionPlan.Create(Dek, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, selectors));

    private static PathRelation[] Relations(string path, string[] selectors, StringComparison comparison)
    {
        Assert.True(RulePath.TryParse(path, out RulePath? parsed, out _));
        return [.. selectors.Select(s => parsed!.RelateTo(SelectorRules.Parse(s), comparison))];
    }

    [Fact]
    public void ExactCasePaths_AreClassifiedAsTheOracleRelatesThem()
    {
        Gen<(string[] Selectors, string Path)> cases =
            from selectors in Selectors()
            from path in PatchPath(s_exactSegments)
            select (selectors, path);

        Prop.ForAll(Arb.From(cases), c =>
        {
            PathRelation[] relations = Relations(c.Path, c.Selectors, StringComparison.Ordinal);
            Assert.True(RulePath.TryParse(c.Path, out RulePath? parsed, out _));

            PatchPathClass actual = For(c.Selectors).Classify(parsed!.Segments);

            // Selectors never overlap, so at most one selector is at or above the path.
            Assert.True(relations.Count(r => r is PathRelation.Same or PathRelation.Descendant) <= 1, string.Join(',', c.Selectors) + " " + c.Path);
            PatchPathKind expected =
                relations.Contains(PathRelation.Same) ? PatchPathKind.Selected
                : relations.Contains(PathRelation.Descendant) ? PatchPathKind.InsideCell
                : relations.Contains(PathRelation.Ancestor) ? PatchPathKind.Ancestor
                : PatchPathKind.Unrelated;
            Assert.True(expected == actual.Kind, $"{string.Join(',', c.Selectors)} {c.Path}: expected {expected}, got {actual.Kind}");
            if (expected is PatchPathKind.Selected or PatchPathKind.InsideCell)
            {
                Assert.Equal(c.Selectors[Array.FindIndex(relations, r => r is PathRelation.Same or PathRelation.Descendant)], For(c.Selectors).Plan.GetPath(actual.RuleIndex));
            }
        }).QuickCheckThrowOnFailure();
    }

    [Fact]
    public void AnyCasePaths_AtOrInsideASelectedValue_AreNeverPassedThrough()
    {
        Gen<(string[] Selectors, string Path)> cases =
            from selectors in Selectors()
            from path in PatchPath(s_anyCaseSegments)
            select (selectors, path);

        Prop.ForAll(Arb.From(cases), c =>
        {
            PathRelation[] ignoringCase = Relations(c.Path, c.Selectors, StringComparison.OrdinalIgnoreCase);
            Assert.True(RulePath.TryParse(c.Path, out RulePath? parsed, out _));

            PatchPathKind kind = For(c.Selectors).Classify(parsed!.Segments).Kind;

            string at = $"{string.Join(',', c.Selectors)} {c.Path}: {kind}";
            if (ignoringCase.Any(r => r is PathRelation.Same or PathRelation.Descendant))
            {
                Assert.True(kind is PatchPathKind.Selected or PatchPathKind.InsideCell or PatchPathKind.CaseVariant, at);
            }

            if (ignoringCase.Contains(PathRelation.Ancestor))
            {
                Assert.True(kind != PatchPathKind.Unrelated, at);
            }
        }).QuickCheckThrowOnFailure();
    }

    [Fact]
    public void EveryOperation_IsClassifiedExactlyOnce_AndAnOperationInsideACellIsRefused()
    {
        Gen<PatchOperation> operation =
            from path in PatchPath(s_anyCaseSegments)
            from source in PatchPath(s_anyCaseSegments)
            from kind in Gen.Choose(0, 5)
            select kind switch
            {
                0 => PatchOperation.Set(path, "v"),
                1 => PatchOperation.Add(path, "v"),
                2 => PatchOperation.Replace(path, "v"),
                3 => PatchOperation.Remove(path),
                4 => PatchOperation.Increment(path, 1),
                _ => PatchOperation.Move(source, path),
            };
        Gen<(string[] Selectors, PatchOperation[] Operations)> cases =
            from selectors in Selectors()
            from count in Gen.Choose(1, 12)
            from operations in operation.ArrayOf(count)
            select (selectors, operations);

        Prop.ForAll(Arb.From(cases), c =>
        {
            PatchSelectors selectors = For(c.Selectors);
            bool refusable = c.Operations.Any(o => Paths(o).Any(p => IsAtOrInsideIgnoringCase(p, c.Selectors, insideOnly: o.OperationType != PatchOperationType.Increment)));
            try
            {
                ClassifiedOperation[] classified = PatchClassifier.Classify(c.Operations, selectors);

                Assert.False(refusable, string.Join(',', c.Selectors) + " " + string.Join(' ', c.Operations.Select(o => o.OperationType + o.Path)));
                Assert.Equal(c.Operations, classified.Select(o => o.Operation));
                Assert.All(classified, o => Assert.True(o.Target.Kind is PatchPathKind.Unrelated or PatchPathKind.Selected or PatchPathKind.Ancestor));
            }
            catch (EncryptionException error)
            {
                Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
                Assert.DoesNotContain("\"v\"", error.Message, StringComparison.Ordinal);
            }
        }).QuickCheckThrowOnFailure();
    }

    private static IEnumerable<string> Paths(PatchOperation operation) =>
        operation.OperationType == PatchOperationType.Move ? [operation.Path, operation.From] : [operation.Path];

    // Inside a cell (any operation), or for an increment also exactly a selected value.
    private static bool IsAtOrInsideIgnoringCase(string path, string[] selectors, bool insideOnly) =>
        Relations(path, selectors, StringComparison.OrdinalIgnoreCase).Any(r => r == PathRelation.Descendant || (!insideOnly && r == PathRelation.Same));
}

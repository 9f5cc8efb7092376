using FsCheck;
using FsCheck.Fluent;
using Encryption.Custom.Migration;

namespace Encryption.Custom.Tests.Migration;

/// <summary>
/// What migrate calls a change the operator must name: each path the container encrypts that the target does not
/// (decrypt), and each target path held with the other encryption type, with the count of documents it touches.
/// </summary>
public sealed class TargetComparisonTests
{
    private static readonly string[] s_universe = ["/a", "/b", "/c", "/d", "/e", "/f"];

    [Fact]
    public void Compare_IssueScenario_ForgottenPathIsADecryptOfEveryDocumentNotAllowed()
    {
        var paths = new Dictionary<string, PathUse> { ["/ssn"] = new(3000, 0, 3000), ["/card"] = new(3000, 0, 3000) };

        PathChange change = Assert.Single(TargetComparison.Compare(new ContainerEncryptionPolicy("dek-2", ["/ssn"]), paths, [], []));

        Assert.Equal(new PathChange("/card", PathChangeKind.Decrypt, 3000, Allowed: false), change);
        Assert.Equal(
            "decrypt /card in 3000 document(s): the target does not encrypt it, so its values would be stored as plaintext",
            TargetComparison.Describe(change));
    }

    [Fact]
    public void Compare_GeneratedContainersAndTargets_ListsExactlyTheDecryptsAndTypeChangesWithTheirCounts()
    {
        // Masks over six paths: which the container encrypts (and how many documents each way), which the target
        // lists (null target: none, "decrypt everything") and how, and which the operator allowed.
        Arbitrary<(int, int, int, int)> masks = (
            from inUse in Gen.Choose(0, (1 << 24) - 1)
            from targetMask in Gen.Choose(-1, (1 << 6) - 1)
            from typeMask in Gen.Choose(0, (1 << 6) - 1)
            from allowedMask in Gen.Choose(0, (1 << 12) - 1)
            select (inUse, targetMask, typeMask, allowedMask)).ToArbitrary();
        Prop.ForAll(masks, generated =>
        {
            (int inUse, int targetMask, int typeMask, int allowedMask) = generated;
            var paths = new Dictionary<string, PathUse>();
            for (int i = 0; i < s_universe.Length; i++)
            {
                if ((inUse >> i & 1) != 0)
                {
                    long deterministic = (inUse >> (i + 6) & 1) * (i + 1);
                    long randomized = (inUse >> (i + 12) & 1) * (i + 2);
                    paths[s_universe[i]] = new PathUse(deterministic + randomized + (inUse >> (i + 18) & 1), deterministic, randomized);
                }
            }

            string[] targetPaths = [.. s_universe.Where((_, i) => (targetMask >> i & 1) != 0)];
            ContainerEncryptionPolicy? target = targetPaths.Length == 0 || targetMask < 0
                ? null
                : new ContainerEncryptionPolicy("dek", targetPaths.Select(p => new EncryptionPolicyIncludedPath(p)
                {
                    EncryptionType = (typeMask >> Array.IndexOf(s_universe, p) & 1) != 0 ? PathEncryptionType.Deterministic : PathEncryptionType.Randomized,
                }));
            string[] allowedDecrypt = [.. s_universe.Where((_, i) => (allowedMask >> i & 1) != 0)];
            string[] allowedTypeChange = [.. s_universe.Where((_, i) => (allowedMask >> (i + 6) & 1) != 0)];

            IReadOnlyList<PathChange> changes = TargetComparison.Compare(target, paths, allowedDecrypt, allowedTypeChange);

            var expected = new List<PathChange>();
            foreach ((string path, PathUse use) in paths.OrderBy(p => p.Key, StringComparer.Ordinal))
            {
                EncryptionPolicyIncludedPath? included = target?.IncludedPaths.SingleOrDefault(p => p.Path == path);
                if (included is null)
                {
                    expected.Add(new PathChange(path, PathChangeKind.Decrypt, use.Documents, allowedDecrypt.Contains(path)));
                }
                else if (included.EncryptionType == PathEncryptionType.Deterministic && use.Randomized > 0)
                {
                    expected.Add(new PathChange(path, PathChangeKind.ToDeterministic, use.Randomized, allowedTypeChange.Contains(path)));
                }
                else if (included.EncryptionType == PathEncryptionType.Randomized && use.Deterministic > 0)
                {
                    expected.Add(new PathChange(path, PathChangeKind.ToRandomized, use.Deterministic, allowedTypeChange.Contains(path)));
                }
            }

            Assert.Equal(expected, changes);
            Assert.All(changes, c => Assert.True(paths.ContainsKey(c.Path)));
        }).QuickCheckThrowOnFailure();
    }

    [Fact]
    public void Compare_TargetAddsPathsOnly_NeedsNoPermission()
    {
        var paths = new Dictionary<string, PathUse> { ["/ssn"] = new(10, 0, 10) };

        Assert.Empty(TargetComparison.Compare(new ContainerEncryptionPolicy("dek-2", ["/ssn", "/card"]), paths, [], []));
    }
}

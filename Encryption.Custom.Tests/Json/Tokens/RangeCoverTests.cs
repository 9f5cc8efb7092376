using FsCheck;
using FsCheck.Fluent;
using Encryption.Custom.Json.Tokens;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Tests.Json.Tokens;

/// <summary>
/// The range cover (docs/queries.md "Range and prefix queries"): for generated domains, sparsities, trims and ranges,
/// the cover's nodes are at stored levels, disjoint, their leaves are exactly the range, and no cover of stored-level
/// aligned blocks is smaller (checked against a brute-force shortest cover).
/// </summary>
public sealed class RangeCoverTests
{
    [Fact]
    public void Cover_GeneratedRanges_IsExactDisjointAndMinimal()
    {
        Arbitrary<(int, int, int, int, int)> cases = (
            from maxOffset in Gen.Choose(1, 700)
            from sparsity in Gen.Choose(1, 4)
            from trim in Gen.Choose(0, 3)
            from a in Gen.Choose(0, maxOffset)
            from b in Gen.Choose(0, maxOffset)
            select (maxOffset, sparsity, trim, Math.Min(a, b), Math.Max(a, b))).ToArbitrary();
        Prop.ForAll(cases, generated =>
        {
            (int maxOffset, int sparsity, int trim, int low, int high) = generated;
            RangeDomain? domain = TryDomain(maxOffset, sparsity, trim);
            if (domain is null)
            {
                return;
            }

            var nodes = new List<(int Level, ulong Node)>();
            domain.Cover((ulong)low, (ulong)high, nodes);
            var covered = new List<ulong>();
            foreach ((int level, ulong node) in nodes)
            {
                Assert.True(domain.IsStored(level), $"level {level} is not stored");
                int height = domain.Bits - level;
                for (ulong leaf = node << height; leaf < (node + 1) << height; leaf++)
                {
                    covered.Add(leaf);
                }
            }

            covered.Sort();
            Assert.Equal(Enumerable.Range(low, high - low + 1).Select(v => (ulong)v), covered);
            Assert.Equal(ShortestCover(domain, low, high), nodes.Count);
        }).QuickCheckThrowOnFailure();
    }

    [Fact]
    public void Tokens_OfAValue_MeetTheCoverOfARangeExactlyOnceWhenInside()
    {
        using DataEncryptionKey key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        QueryTokenRule rule = QueryTokenRule.ForRange("/age", new RangeDomain(RangeValueType.Integer, -50, 200, 1, 2, 1, "int:-50:200"), 12);
        Arbitrary<(int, int, int)> cases = (
            from a in Gen.Choose(-50, 200)
            from b in Gen.Choose(-50, 200)
            from v in Gen.Choose(-50, 200)
            select (Math.Min(a, b), Math.Max(a, b), v)).ToArbitrary();
        using var lease = Encryption.Custom.Keys.DataEncryptionKeyLease.Acquire(key);
        Prop.ForAll(cases, generated =>
        {
            (int low, int high, int value) = generated;
            byte[] stored = new byte[rule.TokenCount * rule.TokenLength];
            QueryTokens.ComputeFromPlainText(key, rule, TypeMarker.Long, BitConverter.GetBytes((long)value), stored);
            var nodes = new List<(int Level, ulong Node)>();
            rule.Range!.Cover(rule.Range.ClampOffset(low), rule.Range.ClampOffset(high), nodes);
            int matches = 0;
            byte[] token = new byte[rule.TokenLength];
            foreach ((int level, ulong node) in nodes)
            {
                QueryTokens.ComputeRangeNode(key, rule, level, node, token);
                for (int i = 0; i < rule.TokenCount; i++)
                {
                    matches += stored.AsSpan(i * rule.TokenLength, rule.TokenLength).SequenceEqual(token) ? 1 : 0;
                }
            }

            Assert.Equal(value >= low && value <= high ? 1 : 0, matches);
        }).QuickCheckThrowOnFailure();
    }

    [Theory]
    [InlineData(1, 0, 10)] // a 10-level tree, every level below the root: 10 tokens
    [InlineData(2, 0, 5)]
    [InlineData(2, 1, 5)] // level 1 is not stored at sparsity 2 anyway
    [InlineData(3, 0, 4)]
    public void StoredLevelCount_FollowsSparsityAndTrim(int sparsity, int trim, int expected) =>
        Assert.Equal(expected, new RangeDomain(RangeValueType.Integer, 0, 1023, 1, sparsity, trim, "int:0:1023").StoredLevelCount);

    [Fact]
    public void Domain_TooLargeOrEmptyOrTrimmedAway_IsRefused()
    {
        Assert.Throws<ArgumentException>(() => new RangeDomain(RangeValueType.Decimal, -1e20m, 1e20m, 1e18m, 2, 0, "x"));
        Assert.Throws<ArgumentException>(() => new RangeDomain(RangeValueType.Integer, 5, 5, 1, 2, 0, "x"));
        Assert.Throws<ArgumentException>(() => new RangeDomain(RangeValueType.Integer, 0, 1023, 1, 2, 10, "x"));
        Assert.Throws<ArgumentException>(() => new RangeDomain(RangeValueType.Integer, 0, 1023, 1, 1, 9, "x")); // 2^10 top nodes
    }

    private static RangeDomain? TryDomain(int maxOffset, int sparsity, int trim)
    {
        try
        {
            return new RangeDomain(RangeValueType.Integer, 0, maxOffset, 1, sparsity, trim, "int");
        }
        catch (ArgumentException)
        {
            return null;
        }
    }

    // Dynamic programming over the leaves: best[x] = fewest aligned stored-level blocks covering [low, x).
    private static int ShortestCover(RangeDomain domain, int low, int high)
    {
        int length = high - low + 1;
        int[] best = new int[length + 1];
        Array.Fill(best, int.MaxValue);
        best[0] = 0;
        for (int x = 0; x < length; x++)
        {
            if (best[x] == int.MaxValue)
            {
                continue;
            }

            for (int level = 1; level <= domain.Bits; level++)
            {
                int size = 1 << (domain.Bits - level);
                if (domain.IsStored(level) && (low + x) % size == 0 && x + size <= length)
                {
                    best[x + size] = Math.Min(best[x + size], best[x] + 1);
                }
            }
        }

        return best[length];
    }
}

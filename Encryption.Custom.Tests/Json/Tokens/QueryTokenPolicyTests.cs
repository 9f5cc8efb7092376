namespace Encryption.Custom.Tests.Json.Tokens;

/// <summary>Declarations that cannot work are refused when the policy is built, naming the path and why.</summary>
public sealed class QueryTokenPolicyTests
{
    public static TheoryData<string, QueryTokenOptions, string> Refused => new()
    {
        { "/cards/[]/number", new PrefixQueryOptions(), "under an array" },
        { "/orders/[]/lines/[]/amount", new IntegerRangeQueryOptions(0, 10), "under an array" },
        { "/age", new IntegerRangeQueryOptions(10, 10), "maximum must be above the minimum" },
        { "/amount", new DecimalRangeQueryOptions(-1e20m, 1e20m, 18), "does not fit" },
        { "/amount", new DecimalRangeQueryOptions(0, 1, 19), "precision" },
        { "/age", new IntegerRangeQueryOptions(0, 1000) { TrimFactor = 12 }, "trim factor" },
        { "/age", new IntegerRangeQueryOptions(long.MinValue, long.MaxValue) { Sparsity = 4, TrimFactor = 8 }, "tree nodes" },
        { "/name", new PrefixQueryOptions { MinLength = 5, MaxLength = 4 }, "prefix lengths" },
        { "/name", new PrefixQueryOptions { MaxLength = 65 }, "prefix lengths" },
    };

    [Theory]
    [MemberData(nameof(Refused))]
    public void Policy_DeclarationThatCannotWork_IsRefusedNamingWhy(string path, QueryTokenOptions queries, string reason)
    {
        EncryptionException error = Assert.Throws<EncryptionException>(() => new ContainerEncryptionPolicy("dek", [new EncryptionPolicyIncludedPath(path) { Queries = queries }]));
        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Contains(path, error.Message, StringComparison.Ordinal);
        Assert.Contains(reason, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Options_OutOfRangeSettings_AreRefusedWhenSet()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new PrefixQueryOptions { TokenLength = 7 });
        Assert.Throws<ArgumentOutOfRangeException>(() => new IntegerRangeQueryOptions(0, 1) { Sparsity = 5 });
        Assert.Throws<ArgumentOutOfRangeException>(() => new IntegerRangeQueryOptions(0, 1) { TrimFactor = -1 });
        Assert.Throws<ArgumentOutOfRangeException>(() => new DateTimeRangeQueryOptions(DateTimeOffset.UnixEpoch, DateTimeOffset.UtcNow) { Resolution = TimeSpan.Zero });
    }

    [Fact]
    public void Policy_WithTokens_WritesFormat101NamingQt()
    {
        var policy = new ContainerEncryptionPolicy("dek",
        [
            new EncryptionPolicyIncludedPath("/dob") { Queries = new DateTimeRangeQueryOptions(new DateTimeOffset(1900, 1, 1, 0, 0, 0, TimeSpan.Zero), new DateTimeOffset(2100, 1, 1, 0, 0, 0, TimeSpan.Zero)) },
            new EncryptionPolicyIncludedPath("/name") { Queries = new PrefixQueryOptions { IgnoreCase = true } },
            new EncryptionPolicyIncludedPath("/ssn"),
        ]);
        Assert.True(policy.Plan.IsExtendedFormat);
        Assert.True(policy.Plan.HasQueryTokens);
        Assert.Null(policy.Plan.GetQueryTokens(2));
        Assert.Equal(17, policy.Plan.GetQueryTokens(0)!.TokenCount); // 1900..2100 in seconds: 33 levels, every second one
        Assert.Equal(8, policy.Plan.GetQueryTokens(1)!.TokenCount);
    }

    [Fact]
    public void Declarations_AreCanonical_EqualDomainsGiveEqualDescriptors()
    {
        QueryTokenOptions one = new DecimalRangeQueryOptions(-1m, 1m, 2);
        QueryTokenOptions same = new DecimalRangeQueryOptions(-1.00m, 1.0m, 2);
        Assert.Equal(one.Compile("/x").Descriptor, same.Compile("/x").Descriptor);
        Assert.Equal("range:dec:-1:1:p2:s2:t0:l12", one.Compile("/x").Descriptor);
        Assert.Equal("range:int:-5:100:s1:t3:l16", new IntegerRangeQueryOptions(-5, 100) { Sparsity = 1, TrimFactor = 3, TokenLength = 16 }.Compile("/x").Descriptor);
        Assert.Equal("prefix:nfc:fold:2:6:l12", new PrefixQueryOptions { MinLength = 2, MaxLength = 6, IgnoreCase = true }.Compile("/x").Descriptor);
    }
}

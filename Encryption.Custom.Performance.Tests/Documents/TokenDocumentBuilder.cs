namespace Encryption.Custom.Performance.Tests.Documents;

/// <summary>
/// The tokens shape: the lookup document with its lookup keys declared for range and prefix queries instead of
/// equality (docs/queries.md, "Range and prefix queries"), and each block's creation date encrypted with a date-time
/// range: SKU prefix (1–8 runes, ignoring case), SSN over its nine-digit domain, price over 0–10,000 at two decimals,
/// creation date over 2000–2100 at one second; the notes stay randomized, the verified flags deterministic. A policy
/// serves tokens on its first 64 top-level paths (docs/queries.md), so the first 16 blocks declare them (listed first)
/// and the later blocks' keys stay deterministic: 1–8 KB documents are all tokens, larger ones add plain lookups.
/// </summary>
internal static class TokenDocumentBuilder
{
    private static readonly DateTimeOffset s_firstDate = new(2000, 1, 1, 0, 0, 0, TimeSpan.Zero);
    private static readonly DateTimeOffset s_lastDate = new(2100, 1, 1, 0, 0, 0, TimeSpan.Zero);

    public static BenchmarkDocument Build(int size, Random random)
    {
        BenchmarkDocument lookup = MixedDocumentBuilder.Build(size, random, lookupKeys: true);
        var tokenPaths = new List<EncryptionPolicyIncludedPath>();
        var otherPaths = new List<EncryptionPolicyIncludedPath>();
        var paths = new List<string>();
        foreach (string path in lookup.Paths)
        {
            bool tokens = tokenPaths.Count < MaxTokenPaths;
            EncryptionPolicyIncludedPath declared = Declare(path, lookup.DeterministicPaths.Contains(path), tokens);
            (declared.Queries is null ? otherPaths : tokenPaths).Add(declared);
            paths.Add(path);
            if (tokens && path.StartsWith("/ssn", StringComparison.Ordinal))
            {
                // Every block that has an SSN has its creation date before it.
                string createdAt = "/createdAt" + path["/ssn".Length..];
                tokenPaths.Add(new EncryptionPolicyIncludedPath(createdAt) { Queries = new DateTimeRangeQueryOptions(s_firstDate, s_lastDate) });
                paths.Add(createdAt);
            }
        }

        var policy = new ContainerEncryptionPolicy(BenchmarkDocument.KeyId, [.. tokenPaths, .. otherPaths]) { Bind = false };
        return new BenchmarkDocument(DocumentShape.Tokens, size, lookup.Utf8, [.. paths]) { Rules = policy.Rules };
    }

    // Declarations beyond this many would be refused (readers track token paths in one 64-bit set); one block adds
    // four, so the count never passes it by more than three.
    private const int MaxTokenPaths = 64 - 4;

    private static EncryptionPolicyIncludedPath Declare(string path, bool lookupKey, bool tokens) => path switch
    {
        _ when !tokens => lookupKey ? new(path) { EncryptionType = PathEncryptionType.Deterministic } : new(path),
        _ when path.StartsWith("/sku", StringComparison.Ordinal) => new(path) { Queries = new PrefixQueryOptions { IgnoreCase = true } },
        _ when path.StartsWith("/ssn", StringComparison.Ordinal) => new(path) { Queries = new IntegerRangeQueryOptions(100_000_000, 999_999_999) },
        _ when path.StartsWith("/price", StringComparison.Ordinal) => new(path) { Queries = new DecimalRangeQueryOptions(0, 10_000, 2) },
        _ when lookupKey => new(path) { EncryptionType = PathEncryptionType.Deterministic },
        _ => new(path),
    };
}

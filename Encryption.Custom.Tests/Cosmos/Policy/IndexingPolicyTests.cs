using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Policy;

/// <summary>
/// <see cref="ContainerEncryptionPolicy.CreateIndexingPolicy"/>: randomized ciphertext and the metadata are not indexed,
/// deterministic paths and the query tokens are (docs/queries.md "Indexing policy").
/// </summary>
public sealed class IndexingPolicyTests
{
    [Fact]
    public void ExcludesRandomizedCiphertextAndMetadata_KeepsDeterministicPathsAndTokens()
    {
        var policy = new ContainerEncryptionPolicy("dek",
        [
            new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/age") { Queries = new IntegerRangeQueryOptions(0, 150) },
            new EncryptionPolicyIncludedPath("/notes"),
            new EncryptionPolicyIncludedPath("/address/zip") { Queries = new IntegerRangeQueryOptions(0, 99999) },
            new EncryptionPolicyIncludedPath("/cards/[]/number"),
            new EncryptionPolicyIncludedPath("/first name"),
        ]);

        IndexingPolicy indexing = policy.CreateIndexingPolicy();

        Assert.Equal(IndexingMode.Consistent, indexing.IndexingMode);
        Assert.Equal(["/*"], indexing.IncludedPaths.Select(p => p.Path));
        Assert.Equal(
            ["/age/?", "/notes/?", "/\"first name\"/?", "/address/zip/?", "/cards/[]/number/?", "/_ei/*", "/_ex/?"],
            indexing.ExcludedPaths.Select(p => p.Path));
        Assert.DoesNotContain(indexing.ExcludedPaths, p => p.Path.StartsWith("/ssn", StringComparison.Ordinal) || p.Path.StartsWith("/_q", StringComparison.Ordinal));
        Assert.NotSame(indexing, policy.CreateIndexingPolicy());
    }
}

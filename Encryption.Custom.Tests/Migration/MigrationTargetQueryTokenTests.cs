using Encryption.Custom.Migration;

namespace Encryption.Custom.Tests.Migration;

/// <summary>
/// The migration job does not add or check query tokens yet (docs/queries.md "Range and prefix queries"): a target
/// with range or prefix declarations is refused when the job (or its status) is set up, rather than leaving documents
/// without tokens in what it would call the target state.
/// </summary>
public sealed class MigrationTargetQueryTokenTests
{
    [Fact]
    public void ATargetWithQueryTokens_IsRefused_NamingWhy()
    {
        var policy = new ContainerEncryptionPolicy("dek", [new EncryptionPolicyIncludedPath("/age") { Queries = new IntegerRangeQueryOptions(0, 150) }]);

        EncryptionException error = Assert.Throws<EncryptionException>(() => new MigrationTarget(policy, [], encryptor: null));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Contains("query tokens", error.Message, StringComparison.Ordinal);
    }
}

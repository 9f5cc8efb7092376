using Encryption.Custom.Cosmos.Processing;
using Encryption.Custom.Json.Rules;

namespace Encryption.Custom.Tests.Cosmos.Processing;

/// <summary>
/// Per-request options (Microsoft's style) under a policy with range or prefix paths: the write still carries the
/// policy's token declarations, in the order of the request's own paths, so its documents hold their tokens.
/// </summary>
public sealed class WriteOptionsResolverQueryTokenTests
{
    [Fact]
    public void RequestOptions_CoveringATokenPolicy_WriteThePolicysTokens()
    {
        var policy = new ContainerEncryptionPolicy("dek",
        [
            new EncryptionPolicyIncludedPath("/age") { Queries = new IntegerRangeQueryOptions(0, 150) },
            new EncryptionPolicyIncludedPath("/ssn"),
        ]);
        var resolver = new WriteOptionsResolver(policy);

        EncryptionOptions resolved = resolver.Resolve(new EncryptionOptions { DataEncryptionKeyId = "dek", PathsToEncrypt = ["/extra", "/ssn", "/age"] })!;

        EncryptionPlan plan = resolved.GetPlan();
        Assert.True(plan.HasQueryTokens);
        Assert.Same(policy.Plan.GetQueryTokens(0), plan.GetQueryTokens(plan.IndexOf("/age")));
        Assert.Null(plan.GetQueryTokens(plan.IndexOf("/extra")));
        Assert.Null(plan.GetQueryTokens(plan.IndexOf("/ssn")));
    }
}

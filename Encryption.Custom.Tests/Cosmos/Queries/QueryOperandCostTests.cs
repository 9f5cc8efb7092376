using Encryption.Custom.Cosmos.Queries;
using Encryption.Custom.Cosmos.Serialization;
using Encryption.Custom.Keys;
using Encryption.Custom.Tests.TestSupport;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Queries;

/// <summary>
/// What encrypting a long IN list costs besides the encryptions (issue 32: 20,000 values took 23-29 s): each accepted
/// key is asked for once per query, not once per value and key (twice: to recognise an AddParameterAsync value,
/// then to encrypt). Counted, never timed.
/// </summary>
public sealed class QueryOperandCostTests
{
    private static readonly DataEncryptionKey s_key1 = TestKeys.Create(TestKeyKind.Protected);
    private static readonly DataEncryptionKey s_key2 = TestKeys.Create(TestKeyKind.Protected);

    [Theory]
    [InlineData(1)]
    [InlineData(1_000)]
    public void AnInListDuringARotation_AsksForEachKeyOncePerQuery(int values)
    {
        var policy = new ContainerEncryptionPolicy("dek2", [new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic }])
        {
            AcceptedDataEncryptionKeyIds = ["dek1"],
        };
        var encryptor = new TestEncryptor().Add("dek1", s_key1).Add("dek2", s_key2);
        var guard = new QueryGuard(policy, encryptor, new NewtonsoftItemSerializer(null));
        var query = new QueryDefinition("SELECT * FROM c WHERE c.ssn IN (" + string.Join(", ", Enumerable.Range(0, values).Select(i => "@p" + i)) + ")");
        for (int i = 0; i < values; i++)
        {
            query = query.WithParameter("@p" + i, "value-" + i);
        }

        QueryDefinition sent = guard.Check(query);

        Assert.Equal(2 * values, sent.GetQueryParameters().Count);
        Assert.Equal(2, encryptor.Lookups);
    }
}

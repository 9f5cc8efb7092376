using Encryption.Custom.Cosmos.Patch;
using Encryption.Custom.Cosmos.Serialization;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Patch;

/// <summary>
/// The format 3 transformer (<see cref="PatchTransformer"/>, still used by patches inside a transactional batch) cannot
/// write a bound cell, so under a policy that binds, any operation on an encrypted path fails closed, naming replace as
/// the way; operations elsewhere pass unchanged. Top-level paths only, so the refusal is binding's, not nested
/// selectors'. Single patches under a binding policy go through <see cref="NestedPatchRewriter"/>, which binds.
/// </summary>
public sealed class BoundPolicyPatchTests : IDisposable
{
    private const string Dek = "dek1";
    private static readonly CosmosSerializer s_serializer = new NewtonsoftItemSerializer(null);

    private readonly DataEncryptionKey _key = TestKeys.Create(TestKeyKind.Protected);
    private readonly TestEncryptor _encryptor;

    public BoundPolicyPatchTests()
    {
        _encryptor = new TestEncryptor().Add(Dek, _key);
    }

    public void Dispose() => _key.Dispose();

    public static TheoryData<bool, long> Cases => new() { { false, 3 }, { false, 101 }, { true, 3 }, { true, 101 } };

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task OperationOnAnEncryptedPath_IsRefused_WhetherOrNotTheRulesKnowTheContainer(bool boundToContainer, long storedFormat)
    {
        PolicyRuleSet rules = Rules(boundToContainer);
        foreach (PatchOperation operation in new[] { PatchOperation.Set("/ssn", "PLAIN"), PatchOperation.Replace("/limit", 7), PatchOperation.Remove("/ssn") })
        {
            EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => TransformAsync(rules, operation, storedFormat));

            Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
            Assert.Contains("bound to their document", error.Message, StringComparison.Ordinal);
            Assert.Contains("replace the document", error.Message, StringComparison.Ordinal);
            Assert.DoesNotContain("PLAIN", error.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task OperationElsewhere_PassesUnchanged()
    {
        PatchOperation operation = PatchOperation.Set("/name", "Ann");

        IReadOnlyList<PatchOperation> operations = await TransformAsync(Rules(true), operation, 101);

        Assert.Same(operation, Assert.Single(operations));
    }

    private static PolicyRuleSet Rules(bool boundToContainer)
    {
        PolicyRuleSet rules = new ContainerEncryptionPolicy(Dek, ["/ssn", "/limit"]) { Bind = true }.Rules;
        return boundToContainer ? rules.BindTo(new BindingTarget("db/c", ["/pk"])) : rules;
    }

    private async Task<IReadOnlyList<PatchOperation>> TransformAsync(PolicyRuleSet rules, PatchOperation operation, long storedFormat)
    {
        EnvelopeMetadata stored = EnvelopeMetadata.Create(storedFormat, Dek, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, ["/ssn", "/limit"]);
        PatchTransformer.ValidateRequest([operation], null);
        (IReadOnlyList<PatchOperation> operations, _) = await PatchTransformer.TransformAsync([operation], stored, null, new PatchCrypto(rules, new StreamProcessor(), _encryptor, s_serializer), null, TestContext.Current.CancellationToken);
        return operations;
    }
}

using Encryption.Custom.Cosmos.Patch;
using Encryption.Custom.Cosmos.Serialization;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Patch;

/// <summary>
/// The format 3 transformer (<see cref="PatchTransformer"/>, for plans that write format 3, single or in a batch) fails
/// closed on nested selectors: any operation on a nested selector, an ancestor of one or a path inside one (array
/// indexes meeting <c>[]</c>, names compared ignoring case) is refused before anything is sent, and so is one that
/// would rewrite the metadata of a format 101 document. Operations elsewhere pass unchanged. Patches under a
/// format 101 plan (single or in a batch) are classified instead (<see cref="NestedPatchClassifier"/>, <c>NestedPatchRewriterTests</c>).
/// </summary>
public sealed class NestedSelectorPatchTests : IDisposable
{
    private const string Dek = "dek1";
    private static readonly CosmosSerializer s_serializer = new NewtonsoftItemSerializer(null);

    private readonly DataEncryptionKey _key = TestKeys.Create(TestKeyKind.Protected);
    private readonly TestEncryptor _encryptor;
    private readonly ContainerEncryptionPolicy _policy = new(Dek, ["/address/city", "/cards/[]/number", "/ssn"]) { Bind = false };

    public NestedSelectorPatchTests()
    {
        _encryptor = new TestEncryptor().Add(Dek, _key);
    }

    public void Dispose() => _key.Dispose();

    private async Task<IReadOnlyList<PatchOperation>> TransformAsync(PatchOperation operation)
    {
        EncryptionOptions requested = _policy.Rules.CreateWriteOptions();
        PatchTransformer.ValidateRequest([operation], requested);
        EnvelopeMetadata stored = EnvelopeMetadata.Create(101, Dek, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, ["/ssn", "/address/city", "/cards/[]/number"]);
        (IReadOnlyList<PatchOperation> operations, _) = await PatchTransformer.TransformAsync([operation], stored, requested, new PatchCrypto(_policy.Rules, new StreamProcessor(), _encryptor, s_serializer), null, TestContext.Current.CancellationToken);
        return operations;
    }

    public static TheoryData<string, string> Refused => new()
    {
        { "set", "/address/city" },
        { "set", "/address" },
        { "set", "/address/city/x" },
        { "set", "/Address/City" },
        { "set", "/cards/0/number" },
        { "set", "/cards/17" },
        { "add", "/cards/-" },
        { "remove", "/cards" },
        { "replace", "/cards/0" },
        { "move-from", "/address/city" },
        { "move-to", "/cards/1/number" },
        { "set", "/ssn" },
    };

    [Theory]
    [MemberData(nameof(Refused))]
    public async Task OperationOnOrAroundANestedSelector_IsRefused(string kind, string path)
    {
        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => TransformAsync(Operation(kind, path)));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Contains("Replace the document", error.Message, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("PLAIN", error.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("/address/zip")]
    [InlineData("/cards/0/expiry")]
    [InlineData("/name")]
    [InlineData("/cityaddress")]
    public async Task OperationElsewhere_PassesUnchanged(string path)
    {
        PatchOperation operation = PatchOperation.Set(path, "PLAIN");

        IReadOnlyList<PatchOperation> operations = await TransformAsync(operation);

        Assert.Same(operation, Assert.Single(operations));
    }

    private static PatchOperation Operation(string kind, string path) => kind switch
    {
        "set" => PatchOperation.Set(path, "PLAIN"),
        "add" => PatchOperation.Add(path, "PLAIN"),
        "remove" => PatchOperation.Remove(path),
        "replace" => PatchOperation.Replace(path, "PLAIN"),
        "move-from" => PatchOperation.Move(path, "/elsewhere"),
        _ => PatchOperation.Move("/elsewhere", path),
    };
}

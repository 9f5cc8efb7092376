using Encryption.Custom.Cosmos.Patch;
using Encryption.Custom.Cosmos.Serialization;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Patch;

/// <summary>
/// A format 101 document patched without encryption options (no container policy, none attached): any operation on a
/// selector the document lists, an ancestor of one or a path inside one (array indexes meeting <c>[]</c>, names
/// compared ignoring case) is refused before anything is sent, since nothing could write its cells and a replace would
/// store the document unencrypted. Operations elsewhere pass unchanged. Patches under options that write format 101
/// are rewritten instead (<see cref="PatchRewriter"/>, <c>PatchRewriterSelectorTests</c>).
/// </summary>
public sealed class NestedSelectorPatchTests : IDisposable
{
    private const string Dek = "dek1";
    private static readonly CosmosSerializer s_serializer = new NewtonsoftItemSerializer(null);

    private readonly DataEncryptionKey _key = TestKeys.Create(TestKeyKind.Protected);
    private readonly TestEncryptor _encryptor;

    public NestedSelectorPatchTests()
    {
        _encryptor = new TestEncryptor().Add(Dek, _key);
    }

    public void Dispose() => _key.Dispose();

    private async Task<IReadOnlyList<PatchOperation>> TransformAsync(PatchOperation operation)
    {
        EnvelopeMetadata stored = EnvelopeMetadata.Create(101, Dek, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, ["/_ex", "/ssn", "/address/city", "/cards/[]/number"]);
        PatchRewrite rewrite = await PatchRewriting.RewriteAsync([operation], null, new PatchCrypto(null, new StreamProcessor(), _encryptor, s_serializer), stored);
        return rewrite.Operations!;
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
        Assert.True(error.Path is not null && (error.Path == path || path.StartsWith(error.Path, StringComparison.OrdinalIgnoreCase) || error.Path.StartsWith(path, StringComparison.Ordinal)), error.Message);
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

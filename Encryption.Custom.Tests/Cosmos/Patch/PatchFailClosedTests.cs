using System.Text;
using Encryption.Custom.Cosmos.Patch;
using Encryption.Custom.Cosmos.Serialization;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using FsCheck;
using FsCheck.Fluent;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Patch;

/// <summary>
/// A patch under a policy never passes plaintext to a policy path, whatever the spelling (case variants, empty
/// segments, escapes), never loads a key the policy does not accept, and never rebuilds metadata over unlisted ciphertext.
/// </summary>
public sealed class PatchFailClosedTests : IDisposable
{
    private const string Dek = "dek1";
    private const string OtherDek = "dek-other";
    private static readonly CosmosSerializer s_serializer = new NewtonsoftItemSerializer(null);

    private readonly DataEncryptionKey _key = TestKeys.Create(TestKeyKind.Protected);
    private readonly DataEncryptionKey _other = TestKeys.Create(TestKeyKind.Protected);
    private readonly TestEncryptor _encryptor;
    private readonly StreamProcessor _processor = new();
    private readonly ContainerEncryptionPolicy _policy = new(Dek, [new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic }, new EncryptionPolicyIncludedPath("/card")]);

    public PatchFailClosedTests()
    {
        _encryptor = new TestEncryptor().Add(Dek, _key).Add(OtherDek, _other);
    }

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public void Dispose()
    {
        _key.Dispose();
        _other.Dispose();
    }

    private static EnvelopeMetadata Stored(string dek, params string[] paths) =>
        EnvelopeMetadata.Create(3, dek, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, [.. paths]);

    private async Task<IReadOnlyList<PatchOperation>> TransformAsync(PatchOperation operation, EnvelopeMetadata? stored)
    {
        PatchRewrite rewrite = await PatchRewriting.RewriteAsync([operation], _policy.Rules.CreateWriteOptions(), new PatchCrypto(_policy.Rules, _processor, _encryptor, s_serializer), stored);
        Assert.Null(rewrite.ReplaceReason);
        return rewrite.Operations!;
    }

    [Theory]
    [InlineData("/SSN")]
    [InlineData("/Ssn")]
    [InlineData("/CARD")]
    [InlineData("//ssn")]
    [InlineData("/ssn/")]
    [InlineData("//card/")]
    public async Task CaseVariantOrEmptySegment_IsRefusedBeforeAnythingIsSent(string path)
    {
        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => TransformAsync(PatchOperation.Set(path, "078-05-1120"), Stored(Dek, "/ssn")));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.DoesNotContain("078-05-1120", error.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task DocumentUnderAKeyThePolicyDoesNotAccept_IsRefusedBeforeTheKeyIsLoaded()
    {
        int lookups = _encryptor.Lookups;

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => TransformAsync(PatchOperation.Set("/ssn", "078-05-1120"), Stored(OtherDek, "/ssn")));

        Assert.Equal(EncryptionErrorKind.KeyNotAccepted, error.Kind);
        Assert.Equal(OtherDek, error.DataEncryptionKeyId);
        Assert.Equal(lookups, _encryptor.Lookups);
    }

    [Fact]
    public async Task PatchValue_IsTheSameCipherTextADocumentWriteProduces()
    {
        // Deterministic: the value codec gives the patch exactly the cell a write of the whole document gives.
        IReadOnlyList<PatchOperation> operations = await TransformAsync(PatchOperation.Set("/ssn", "078-05-1120"), Stored(Dek, "/ssn"));
        byte[] written = _processor.Encrypt("""{"id":"x","ssn":"078-05-1120"}""", _key, _policy.Rules.CreateWriteOptions());

        Assert.Equal(TopLevelJson.Get(written, "ssn").RawValue.Trim('"'), ValueOf(operations[0]));
    }

    [Fact]
    public void StoredDocumentWithUnlistedCipherText_RefusesThePatch()
    {
        byte[] written = _processor.Encrypt("""{"id":"x","ssn":"078-05-1120","card":"4111"}""", _key, _policy.Rules.CreateWriteOptions());
        string cell = TopLevelJson.Get(written, "card").RawValue;
        byte[] stripped = Encoding.UTF8.GetBytes($$"""{"id":"x","card":{{cell}}}""");

        EncryptionException error = Assert.Throws<EncryptionException>(() => PatchedDocumentCheck.CheckStored(stripped, _policy.Rules, 64));

        Assert.Equal(EncryptionErrorKind.UnlistedCipherText, error.Kind);
        Assert.Equal("/card", error.Path);
        PatchedDocumentCheck.CheckStored(written, _policy.Rules, 64);
    }

    [Fact]
    public void PolicyPaths_WithEscapesOrNamesEqualIgnoringCase_AreRefused()
    {
        Assert.Equal(EncryptionErrorKind.InvalidOptions, Assert.Throws<EncryptionException>(() => new ContainerEncryptionPolicy(Dek, ["/a~1b"])).Kind);
        Assert.Equal(EncryptionErrorKind.InvalidOptions, Assert.Throws<EncryptionException>(() => new ContainerEncryptionPolicy(Dek, ["/ssn", "/SSN"])).Kind);
        Assert.Equal(EncryptionErrorKind.InvalidOptions, Assert.Throws<EncryptionException>(() => new ContainerEncryptionPolicy(Dek, ["/cards/0/number"])).Kind);
    }

    [Fact]
    public void GeneratedPatches_NeverSendPlaintextToAPolicyPath()
    {
        Gen<string> segments = Gen.Elements("ssn", "SSN", "sSn", "card", "Card", "ss~0n", "s~1sn", "", "other", "~01", "x");
        Gen<string> paths =
            from count in Gen.Choose(1, 3)
            from parts in Gen.ArrayOf(segments, count)
            select "/" + string.Join('/', parts);
        Gen<PatchOperation> operations =
            from path in paths
            from kind in Gen.Choose(0, 4)
            select kind switch
            {
                0 => PatchOperation.Set(path, "PLAIN"),
                1 => PatchOperation.Add(path, "PLAIN"),
                2 => PatchOperation.Replace(path, "PLAIN"),
                3 => PatchOperation.Remove(path),
                _ => PatchOperation.Increment(path, 1),
            };
        Gen<(PatchOperation[] Operations, bool Encrypted)> patches =
            from ops in Gen.ArrayOf(operations)
            from encrypted in Gen.Elements(true, false)
            select (ops, encrypted);

        Prop.ForAll(patches.ToArbitrary(), p =>
        {
            EncryptionOptions requested = _policy.Rules.CreateWriteOptions();
            PatchRewrite rewrite;
            try
            {
                rewrite = PatchRewriting.RewriteAsync(p.Operations, requested, new PatchCrypto(_policy.Rules, _processor, _encryptor, s_serializer), p.Encrypted ? Stored(Dek, "/ssn", "/card") : null).GetAwaiter().GetResult();
            }
            catch (EncryptionException)
            {
                return true;
            }

            // A replace goes through the container's write path, which encrypts as the policy says.
            return rewrite.ReplaceReason is not null || rewrite.Operations!.All(SendsNoPlaintextToAPolicyPath);
        }).QuickCheckThrowOnFailure();
    }

    // Every reading a service may give the path (escapes decoded or not, empty segments dropped or not, any case):
    // when it reaches a policy property, the value is ciphertext or the operation removes it.
    private bool SendsNoPlaintextToAPolicyPath(PatchOperation operation)
    {
        if (operation.Path.StartsWith("/_ei", StringComparison.Ordinal) || operation.OperationType == PatchOperationType.Remove)
        {
            return true;
        }

        string[] raw = operation.Path[1..].Split('/');
        string firstNonEmpty = raw.FirstOrDefault(s => s.Length > 0) ?? string.Empty;
        string[] readings = [raw[0], raw[0].Replace("~1", "/", StringComparison.Ordinal).Replace("~0", "~", StringComparison.Ordinal), firstNonEmpty];
        bool reachesPolicy = readings.Any(r => _policy.Rules.FindAtPath(r) >= 0);
        if (!reachesPolicy)
        {
            return true;
        }

        return raw.Length == 1 && operation.OperationType != PatchOperationType.Increment && ValueOf(operation) is { } value && EncryptedCell.IsCellShaped(Encoding.UTF8.GetBytes(value));
    }

    private static string? ValueOf(PatchOperation operation)
    {
        if (!operation.TrySerializeValueParameter(s_serializer, out Stream? stream) || stream is null)
        {
            return null;
        }

        using var reader = new StreamReader(stream);
        var token = Newtonsoft.Json.Linq.JToken.Parse(reader.ReadToEnd());
        return token.Type == Newtonsoft.Json.Linq.JTokenType.String ? (string?)token : null;
    }
}

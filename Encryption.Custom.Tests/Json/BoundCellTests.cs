using Encryption.Custom.Json;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Json;

/// <summary>
/// Values bound to their document through both processors: a binding policy writes format 101 with bind in crit and a
/// version 2 cell per randomized value (deterministic ones stay version 1), either processor reads what the other
/// wrote, and a cell copied into another document, moved to another path, read in another container or replaced by
/// an unbound cell is refused with CellBindingMismatch; an unbound document under a binding policy is a downgrade.
/// </summary>
public sealed class BoundCellTests : IDisposable
{
    private const string Dek = "dek1";
    private const string Scope = "db/orders";
    private const string Alice = """{"id":"alice","pk":"tenant-1","ssn":"SECRET-111","limit":5000,"email":"alice@example.com","address":{"city":"SECRET-Paris","zip":"75001"},"cards":[{"number":"SECRET-4111"},{"number":"SECRET-4222"}]}""";
    private const string Bob = """{"id":"bob","pk":"tenant-1","ssn":"SECRET-222","limit":100,"email":"bob@example.com","address":{"city":"SECRET-Rome","zip":"00100"},"cards":[{"number":"SECRET-5111"}]}""";

    private readonly DataEncryptionKey _key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
    private readonly TestEncryptor _encryptor = new();

    public BoundCellTests()
    {
        _encryptor.Add(Dek, _key);
    }

    public void Dispose() => _key.Dispose();

    private static ContainerEncryptionPolicy Policy(bool bind = true, PlaintextPolicy mode = PlaintextPolicy.WriteEncryptedForbidPlaintext, params string[] paths) =>
        new(Dek, (paths.Length == 0 ? ["/ssn", "/limit", "/address/city", "/cards/[]/number"] : paths).Select(p => new EncryptionPolicyIncludedPath(p)).Append(new EncryptionPolicyIncludedPath("/email") { EncryptionType = PathEncryptionType.Deterministic }))
        {
            Bind = bind,
            PlaintextPolicy = mode,
        };

    private static PolicyRuleSet Rules(ContainerEncryptionPolicy policy, string scope = Scope, params string[] partitionKeyPaths) =>
        policy.Rules.BindTo(new BindingTarget(scope, partitionKeyPaths.Length == 0 ? ["/pk"] : partitionKeyPaths));

    private byte[] Encrypt(JsonProcessor kind, string document, PolicyRuleSet rules) =>
        EncryptionProcessor.Create(kind).Encrypt(document, _key, rules.CreateWriteOptions());

    private byte[] Decrypt(JsonProcessor kind, byte[] document, PolicyRuleSet? rules) =>
        EncryptionProcessor.Create(kind, rules: rules).Decrypt(document, _encryptor);

    private static byte CellVersion(JToken cell) => Convert.FromBase64String((string)cell!)[1];

    // A writer without encryption dropped _ei from a format 101 document: its bound cells cannot be authenticated
    // without the metadata (their MAC covers the selector and document it describes), which used to be reported as
    // "tampered, or written under another key". The anchor _ex it left says what happened: the envelope metadata is
    // missing. Still refused in every mode, never returned as data; feeds (no document id) say the same.
    [Theory]
    [MemberData(nameof(Processors.Pairs), MemberType = typeof(Processors))]
    public void Format101WithoutEi_IsRefusedSayingTheEnvelopeMetadataIsMissing(JsonProcessor writer, JsonProcessor reader)
    {
        foreach (PlaintextPolicy mode in new[] { PlaintextPolicy.WriteEncryptedForbidPlaintext, PlaintextPolicy.WriteEncryptedReadBoth })
        {
            PolicyRuleSet rules = Rules(Policy(mode: mode));
            JObject stored = JObject.Parse(Encrypt(writer, Alice, rules).Utf8());
            stored.Remove("_ei");
            byte[] stripped = stored.ToString(Newtonsoft.Json.Formatting.None).Utf8();

            EncryptionException error = Assert.Throws<EncryptionException>(() => Decrypt(reader, stripped, rules));

            Assert.Equal(EncryptionErrorKind.UnlistedCipherText, error.Kind);
            Assert.Contains("The document 'alice' carries the format 101 anchor '_ex' but not its encryption metadata '_ei': the envelope metadata is missing", error.Message, StringComparison.Ordinal);
            Assert.DoesNotContain("tampered", error.Message, StringComparison.Ordinal);
            Assert.DoesNotContain("SECRET", error.ToString(), StringComparison.Ordinal);
            Assert.Equal(Dek, error.DataEncryptionKeyId);
        }
    }

    // Without the anchor nothing says the document was format 101: a bound cell no key authenticates is as before.
    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void BoundCellWithoutEiOrAnchor_IsStillInvalidCipherText(JsonProcessor kind)
    {
        PolicyRuleSet rules = Rules(Policy());
        JObject stored = JObject.Parse(Encrypt(kind, Alice, rules).Utf8());
        stored.Remove("_ei");
        stored.Remove("_ex");

        EncryptionException error = Assert.Throws<EncryptionException>(() => Decrypt(kind, stored.ToString(Newtonsoft.Json.Formatting.None).Utf8(), rules));

        Assert.Equal(EncryptionErrorKind.InvalidCipherText, error.Kind);
    }

    [Theory]
    [MemberData(nameof(Processors.Pairs), MemberType = typeof(Processors))]
    public void BoundPolicy_WritesBoundCells_AndEitherProcessorReadsThem(JsonProcessor writer, JsonProcessor reader)
    {
        PolicyRuleSet rules = Rules(Policy());
        byte[] encrypted = Encrypt(writer, Alice, rules);
        JObject stored = JObject.Parse(encrypted.Utf8());

        Assert.DoesNotContain("SECRET", encrypted.Utf8(), StringComparison.Ordinal);
        Assert.Equal(101, (int)stored["_ei"]!["_ef"]!);
        Assert.Equal("""{"v":1,"crit":["sel","bind"]}""", stored["_ei"]!["_ev"]!.ToString(Newtonsoft.Json.Formatting.None));
        Assert.All(new[] { stored["ssn"]!, stored["limit"]!, stored["address"]!["city"]!, stored["cards"]![0]!["number"]!, stored["cards"]![1]!["number"]! }, cell => Assert.Equal(0x02, CellVersion(cell)));
        Assert.Equal(0x01, CellVersion(stored["email"]!));

        JsonAssert.Equivalent(Alice, Decrypt(reader, encrypted, rules).Utf8());
    }

    [Theory]
    [MemberData(nameof(Processors.Pairs), MemberType = typeof(Processors))]
    public void TopLevelBoundPolicy_RequiresOnlyBind(JsonProcessor writer, JsonProcessor reader)
    {
        PolicyRuleSet rules = Rules(Policy(paths: ["/ssn", "/limit"]));
        byte[] encrypted = Encrypt(writer, Alice, rules);
        JObject stored = JObject.Parse(encrypted.Utf8());

        Assert.Equal("""{"v":1,"crit":["bind"]}""", stored["_ei"]!["_ev"]!.ToString(Newtonsoft.Json.Formatting.None));
        Assert.Equal(["/_ex", "/ssn", "/limit", "/email"], stored["_ei"]!["_ep"]!.Select(p => (string)p!));
        JsonAssert.Equivalent(Alice, Decrypt(reader, encrypted, rules).Utf8());
    }

    public static TheoryData<JsonProcessor, string> Swaps()
    {
        var data = new TheoryData<JsonProcessor, string>();
        foreach (JsonProcessor kind in Enum.GetValues<JsonProcessor>())
        {
            foreach (string swap in new[] { "alice-ssn-into-bob", "alice-card-into-bob", "bob-limit-moved-to-ssn", "bob-card-moved-to-city", "bob-card-elements-swapped-with-alice", "unbound-cell-into-bob", "bob-moved-to-other-partition" })
            {
                data.Add(kind, swap);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Swaps))]
    public void MovedOrCopiedCell_IsRefusedAsCellBindingMismatch_InEveryMode(JsonProcessor kind, string swap)
    {
        PolicyRuleSet rules = Rules(Policy());
        JObject alice = JObject.Parse(Encrypt(kind, Alice, rules).Utf8());
        JObject bob = JObject.Parse(Encrypt(kind, Bob, rules).Utf8());

        switch (swap)
        {
            case "alice-ssn-into-bob": bob["ssn"] = alice["ssn"]!.DeepClone(); break;
            case "alice-card-into-bob": bob["cards"]![0]!["number"] = alice["cards"]![1]!["number"]!.DeepClone(); break;
            case "bob-limit-moved-to-ssn": bob["ssn"] = bob["limit"]!.DeepClone(); break;
            case "bob-card-moved-to-city": bob["address"]!["city"] = bob["cards"]![0]!["number"]!.DeepClone(); break;
            case "bob-card-elements-swapped-with-alice": bob["cards"] = alice["cards"]!.DeepClone(); break;
            case "unbound-cell-into-bob":
                JObject unbound = JObject.Parse(Encrypt(kind, Bob, Policy(bind: false).Rules).Utf8());
                bob["ssn"] = unbound["ssn"]!.DeepClone();
                break;
            case "bob-moved-to-other-partition": bob["pk"] = "tenant-2"; break;
        }

        // Tampering, not plaintext: refused whatever the plaintext mode.
        foreach (PlaintextPolicy mode in Enum.GetValues<PlaintextPolicy>())
        {
            PolicyRuleSet reading = Rules(Policy(mode: mode));
            EncryptionException error = Assert.Throws<EncryptionException>(() => Decrypt(kind, bob.ToString(Newtonsoft.Json.Formatting.None).Utf8(), reading));
            Assert.Equal(EncryptionErrorKind.CellBindingMismatch, error.Kind);
            Assert.DoesNotContain("SECRET", error.Message, StringComparison.Ordinal);
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void DocumentCopiedIntoAnotherContainer_IsRefused(JsonProcessor kind)
    {
        byte[] encrypted = Encrypt(kind, Alice, Rules(Policy()));

        EncryptionException error = Assert.Throws<EncryptionException>(() => Decrypt(kind, encrypted, Rules(Policy(), scope: "db/orders-copy")));

        Assert.Equal(EncryptionErrorKind.CellBindingMismatch, error.Kind);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void UnboundDocument_UnderBindingPolicy_IsADowngrade_RefusedOnlyWhenPlaintextIsForbidden(JsonProcessor kind)
    {
        foreach (string[] paths in new[] { new[] { "/ssn" }, new[] { "/ssn", "/address/city" } })
        {
            byte[] unbound = Encrypt(kind, Alice, Policy(bind: false, paths: paths).Rules);

            EncryptionException error = Assert.Throws<EncryptionException>(() => Decrypt(kind, unbound, Rules(Policy(paths: paths))));
            Assert.Equal(EncryptionErrorKind.UnsupportedFormat, error.Kind);
            Assert.Contains(paths.Length == 1 ? "binds values to their document" : "without binding", error.Message, StringComparison.Ordinal);

            JsonAssert.Equivalent(Alice, Decrypt(kind, unbound, Rules(Policy(mode: PlaintextPolicy.WriteEncryptedReadBoth, paths: paths))).Utf8());
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void BoundDocument_ReadWithoutTheContainersBinding_IsRefused(JsonProcessor kind)
    {
        byte[] encrypted = Encrypt(kind, Alice, Rules(Policy()));

        Assert.Equal(EncryptionErrorKind.UnsupportedFormat, Assert.Throws<EncryptionException>(() => Decrypt(kind, encrypted, null)).Kind);
        Assert.Equal(EncryptionErrorKind.UnsupportedFormat, Assert.Throws<EncryptionException>(() => Decrypt(kind, encrypted, Policy().Rules)).Kind);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void BindingWrite_WithoutAStringId_OrWithoutContainer_IsRefused(JsonProcessor kind)
    {
        PolicyRuleSet rules = Rules(Policy());
        foreach (string document in new[] { """{"pk":"t","ssn":"SECRET-1"}""", """{"id":7,"pk":"t","ssn":"SECRET-1"}""" })
        {
            EncryptionException error = Assert.Throws<EncryptionException>(() => Encrypt(kind, document, rules));
            Assert.Equal(EncryptionErrorKind.MalformedDocument, error.Kind);
            Assert.Contains("'id'", error.Message, StringComparison.Ordinal);
        }

        Assert.Equal(EncryptionErrorKind.InvalidOptions, Assert.Throws<EncryptionException>(() => Policy().Rules.CreateWriteOptions()).Kind);
    }

    [Theory]
    [MemberData(nameof(Processors.Pairs), MemberType = typeof(Processors))]
    public void MissingOrHierarchicalPartitionKeys_BindTheSameWayInBothProcessors(JsonProcessor writer, JsonProcessor reader)
    {
        foreach (string document in new[] { """{"id":"x\u00e9","ssn":"SECRET-1","tenant":1.0,"region":null}""", """{"region":"eu","ssn":"SECRET-1","id":"y","tenant":"t\"1"}""" })
        {
            PolicyRuleSet rules = Rules(Policy(paths: ["/ssn"]), Scope, "/tenant", "/region", "/missing");
            byte[] encrypted = Encrypt(writer, document, rules);

            JsonAssert.Equivalent(document, Decrypt(reader, encrypted, rules).Utf8());
        }
    }

    [Fact]
    public void NestedPartitionKeyPath_IsRefusedForBinding()
    {
        EncryptionException error = Assert.Throws<EncryptionException>(() => new BindingTarget(Scope, ["/tenant/id"]));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
    }
}

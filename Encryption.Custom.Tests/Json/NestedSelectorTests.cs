using System.Buffers;
using Encryption.Custom.Json;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Json;

/// <summary>
/// Nested selectors through both processors: format 101 is written only when a policy needs it, each selected value
/// becomes its own cell (plaintext elsewhere), both processors read what either wrote, and readers refuse what they
/// do not understand (unknown features, a missing anchor) and what the policy forbids (plaintext, a downgrade).
/// </summary>
public sealed class NestedSelectorTests : IDisposable
{
    private const string Dek = "dek1";
    private const string Document = """{"id":"d1","name":"Ann","address":{"city":"SECRET-city","zip":"12345","geo":{"lat":1.5}},"cards":[{"number":"SECRET-4111","expiry":"12/30"},{"number":null,"expiry":"01/31"},{"expiry":"02/32"},"not an object"],"grid":[[1,"SECRET-a"],[],[true,{"k":"SECRET-o"}]],"n":null}""";

    private static readonly string[] s_selectors = ["/address/city", "/cards/[]/number", "/grid/[]/[]", "/address/geo"];

    private readonly DataEncryptionKey _key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
    private readonly TestEncryptor _encryptor = new();

    public NestedSelectorTests()
    {
        _encryptor.Add(Dek, _key);
    }

    public void Dispose() => _key.Dispose();

    private static ContainerEncryptionPolicy Policy(PlaintextPolicy mode = PlaintextPolicy.WriteEncryptedForbidPlaintext, params string[] selectors) =>
        new(Dek, selectors.Length == 0 ? s_selectors : selectors) { PlaintextPolicy = mode, Bind = false }; // unbound format 101 (crit ["sel"]); bound: BoundCellTests

    private static EncryptionProcessor Create(JsonProcessor kind, ContainerEncryptionPolicy? policy = null) => EncryptionProcessor.Create(kind, rules: policy?.Rules);

    private byte[] Encrypt(JsonProcessor kind, string document = Document, ContainerEncryptionPolicy? policy = null) =>
        Create(kind).Encrypt(document, _key, (policy ?? Policy()).Rules.CreateWriteOptions());

    [Theory]
    [MemberData(nameof(Processors.Pairs), MemberType = typeof(Processors))]
    public void NestedPolicy_WritesFormat101_CellsAtSelectedValuesOnly_AndEitherProcessorReadsIt(JsonProcessor writer, JsonProcessor reader)
    {
        byte[] encrypted = Encrypt(writer);
        JObject stored = JObject.Parse(encrypted.Utf8());

        Assert.DoesNotContain("SECRET", encrypted.Utf8(), StringComparison.Ordinal);
        Assert.Equal("7AEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==", (string?)stored["_ex"]);
        JObject envelope = (JObject)stored["_ei"]!;
        Assert.Equal(101, (int)envelope["_ef"]!);
        Assert.Equal("""{"v":1,"crit":["sel"]}""", envelope["_ev"]!.ToString(Newtonsoft.Json.Formatting.None));
        Assert.Equal(["/_ex", "/address/city", "/cards/[]/number", "/grid/[]/[]", "/address/geo"], envelope["_ep"]!.Select(p => (string)p!));

        // Plaintext around the cells; null stays null; shapes that do not fit the selector are left alone.
        Assert.Equal("12345", (string?)stored["address"]!["zip"]);
        Assert.Equal("12/30", (string?)stored["cards"]![0]!["expiry"]);
        Assert.Equal(JTokenType.Null, stored["cards"]![1]!["number"]!.Type);
        Assert.Equal("not an object", (string?)stored["cards"]![3]);
        Assert.Equal("Ann", (string?)stored["name"]);
        Assert.All(new[] { stored["address"]!["city"]!, stored["address"]!["geo"]!, stored["cards"]![0]!["number"]!, stored["grid"]![0]![0]!, stored["grid"]![0]![1]!, stored["grid"]![2]![1]! }, cell => Assert.Equal(JTokenType.String, cell.Type));

        byte[] decrypted = Create(reader, Policy()).Decrypt(encrypted, _encryptor, out DecryptionContext? context);

        JsonAssert.Equivalent(Document, decrypted.Utf8());
        Assert.Equal(s_selectors, context!.DecryptionInfoList.Single().PathsDecrypted);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void TopLevelPolicy_StillWritesFormat3WithoutAnchor(JsonProcessor kind)
    {
        JObject stored = JObject.Parse(Encrypt(kind, policy: new ContainerEncryptionPolicy(Dek, ["/name", "/address"])).Utf8());

        Assert.Equal(3, (int)stored["_ei"]!["_ef"]!);
        Assert.Null(stored["_ex"]);
        Assert.Null(stored["_ei"]!["_ev"]);
        Assert.Equal(["/name", "/address"], stored["_ei"]!["_ep"]!.Select(p => (string)p!));
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void MixedPolicy_ListsTopLevelPathsFirst_AndRoundTrips(JsonProcessor kind)
    {
        ContainerEncryptionPolicy policy = new(Dek, ["/cards/[]/number", "/name"]) { Bind = false };
        byte[] encrypted = Encrypt(kind, policy: policy);

        Assert.Equal(["/_ex", "/name", "/cards/[]/number"], JObject.Parse(encrypted.Utf8())["_ei"]!["_ep"]!.Select(p => (string)p!));
        JsonAssert.Equivalent(Document, Create(kind, policy).Decrypt(encrypted, _encryptor).Utf8());
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_CaseVariantOrRepeatedNestedName_IsRefused(JsonProcessor kind)
    {
        foreach (string document in new[] { """{"id":"1","address":{"City":"x"}}""", """{"id":"1","Address":{"city":"x"}}""", """{"id":"1","cards":[{"NUMBER":"x"}]}""" })
        {
            EncryptionException error = Assert.Throws<EncryptionException>(() => Encrypt(kind, document));
            Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
            Assert.Contains("only in case", error.Message, StringComparison.Ordinal);
        }

        if (kind == JsonProcessor.Stream)
        {
            // Newtonsoft refuses a repeated name while parsing; the stream processor refuses it at a selected name.
            EncryptionException repeated = Assert.Throws<EncryptionException>(() => Encrypt(kind, """{"id":"1","address":{"city":"x","city":"y"}}"""));
            Assert.Equal(EncryptionErrorKind.MalformedDocument, repeated.Kind);
        }

        Assert.Throws<EncryptionException>(() => Encrypt(kind, """{"id":"1","_ex":"x"}"""));
    }

    public static TheoryData<JsonProcessor, string, EncryptionErrorKind> Tampered => new()
    {
        { JsonProcessor.Stream, "crit:xyz", EncryptionErrorKind.UnsupportedFormat },
        { JsonProcessor.Newtonsoft, "crit:xyz", EncryptionErrorKind.UnsupportedFormat },
        { JsonProcessor.Stream, "crit:bind", EncryptionErrorKind.UnsupportedFormat },
        { JsonProcessor.Newtonsoft, "crit:bind", EncryptionErrorKind.UnsupportedFormat },
        { JsonProcessor.Stream, "crit:commit", EncryptionErrorKind.UnsupportedFormat },
        { JsonProcessor.Newtonsoft, "crit:commit", EncryptionErrorKind.UnsupportedFormat },
        { JsonProcessor.Stream, "v:2", EncryptionErrorKind.UnsupportedFormat },
        { JsonProcessor.Newtonsoft, "v:2", EncryptionErrorKind.UnsupportedFormat },
        { JsonProcessor.Stream, "ev:missing", EncryptionErrorKind.MalformedDocument },
        { JsonProcessor.Newtonsoft, "ev:missing", EncryptionErrorKind.MalformedDocument },
        { JsonProcessor.Stream, "crit:empty", EncryptionErrorKind.MalformedDocument },
        { JsonProcessor.Newtonsoft, "crit:empty", EncryptionErrorKind.MalformedDocument },
        { JsonProcessor.Stream, "anchor:missing", EncryptionErrorKind.MalformedDocument },
        { JsonProcessor.Newtonsoft, "anchor:missing", EncryptionErrorKind.MalformedDocument },
        { JsonProcessor.Stream, "anchor:changed", EncryptionErrorKind.MalformedDocument },
        { JsonProcessor.Newtonsoft, "anchor:changed", EncryptionErrorKind.MalformedDocument },
        { JsonProcessor.Stream, "ep:anchor-not-first", EncryptionErrorKind.MalformedDocument },
        { JsonProcessor.Newtonsoft, "ep:anchor-not-first", EncryptionErrorKind.MalformedDocument },
        { JsonProcessor.Stream, "ep:no-anchor", EncryptionErrorKind.MalformedDocument },
        { JsonProcessor.Newtonsoft, "ep:no-anchor", EncryptionErrorKind.MalformedDocument },
        { JsonProcessor.Stream, "ep:overlap", EncryptionErrorKind.MalformedDocument },
        { JsonProcessor.Newtonsoft, "ep:overlap", EncryptionErrorKind.MalformedDocument },
        { JsonProcessor.Stream, "value:plain", EncryptionErrorKind.InvalidEncryptedValue },
        { JsonProcessor.Newtonsoft, "value:plain", EncryptionErrorKind.InvalidEncryptedValue },
    };

    [Theory]
    [MemberData(nameof(Tampered))]
    public void Read_WithoutPolicy_RefusesWhatItDoesNotUnderstand(JsonProcessor kind, string change, EncryptionErrorKind expected)
    {
        byte[] document = Tamper(Encrypt(JsonProcessor.Stream), change);

        EncryptionException error = Assert.Throws<EncryptionException>(() => Create(kind).Decrypt(document, _encryptor));

        Assert.Equal(expected, error.Kind);
        Assert.DoesNotContain("SECRET", error.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Format101Document_TakenForFormat3_FailsLoudlyOnTheAnchor_NeverPassesCipherTextThrough(JsonProcessor kind)
    {
        // A reader that checks the format lazily (Microsoft's released previews) reads _ep as format 3: the anchor
        // comes first, and its value is too short to be a cell. Our format 3 reader is that reader here.
        byte[] document = Tamper(Encrypt(JsonProcessor.Stream), "ef:3");

        EncryptionException error = Assert.Throws<EncryptionException>(() => Create(kind).Decrypt(document, _encryptor));

        // Ours refuses the nested entries of _ep under format 3 first; the next test shows the anchor's own failure.
        Assert.True(error.Kind is EncryptionErrorKind.InvalidEncryptedValue or EncryptionErrorKind.MalformedDocument, error.Kind.ToString());
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Format101Document_ThatOnlyAFormat3AnchorCheckWouldRead_StillFailsOnTheAnchorCell(JsonProcessor kind)
    {
        // The anchor alone, decoded as a format 3 value (marker, then cell), is refused by the cell's length check.
        byte[] document = ("{\"id\":\"1\",\"_ex\":\"7AEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==\",\"_ei\":{\"_ef\":3,\"_en\":\"" + Dek + "\",\"_ea\":\"" + CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized + "\",\"_ed\":null,\"_ep\":[\"/_ex\"]}}").Utf8();

        EncryptionException error = Assert.Throws<EncryptionException>(() => Create(kind).Decrypt(document, _encryptor));

        Assert.Equal(EncryptionErrorKind.InvalidEncryptedValue, error.Kind);
        Assert.Equal("/_ex", error.Path);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void StrictRead_PlaintextOrCaseVariantAtANestedSelector_IsRefused(JsonProcessor kind)
    {
        EncryptionProcessor processor = Create(kind, Policy());
        string[] documents =
        [
            """{"id":"d1","address":{"city":"SECRET-city"}}""",
            """{"id":"d1","cards":[{"number":"4111"},{"number":"SECRET-4"}]}""",
            """{"id":"d1","address":{"City":"SECRET-city"}}""",
            """{"id":"d1","ADDRESS":{"city":"SECRET-city"}}""",
            """{"id":"d1","grid":[["SECRET-g"]]}""",
        ];

        foreach (string document in documents)
        {
            EncryptionException error = Assert.Throws<EncryptionException>(() => processor.Decrypt(document.Utf8(), _encryptor));
            Assert.Equal(EncryptionErrorKind.PlaintextForbidden, error.Kind);
            Assert.DoesNotContain("SECRET", error.ToString(), StringComparison.Ordinal);
        }

        // Nothing at a selected position, or null there: nothing to refuse.
        Assert.Equal("""{"id":"d1","address":{"city":null,"zip":"1"},"cards":[]}""", processor.Decrypt("""{"id":"d1","address":{"city":null,"zip":"1"},"cards":[]}""".Utf8(), _encryptor).Utf8());

        // In the read-both mode the same documents read (and are counted).
        EncryptionProcessor lenient = Create(kind, Policy(PlaintextPolicy.WriteEncryptedReadBoth));
        Assert.Equal(documents[0], lenient.Decrypt(documents[0].Utf8(), _encryptor).Utf8());
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void StrictRead_UnlistedNestedCell_IsRefusedAsUnlistedCipherText(JsonProcessor kind)
    {
        byte[] document = Tamper(Encrypt(JsonProcessor.Stream), "ep:drop-city");

        EncryptionException error = Assert.Throws<EncryptionException>(() => Create(kind, Policy()).Decrypt(document, _encryptor));

        Assert.Equal(EncryptionErrorKind.UnlistedCipherText, error.Kind);
        Assert.Equal("/address/city", error.Path);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void StrictRead_Format3DocumentUnderANestedPolicy_IsADowngrade(JsonProcessor kind)
    {
        byte[] format3 = Encrypt(JsonProcessor.Stream, policy: new ContainerEncryptionPolicy(Dek, ["/name"]));

        EncryptionException error = Assert.Throws<EncryptionException>(() => Create(kind, Policy()).Decrypt(format3, _encryptor));
        Assert.Equal(EncryptionErrorKind.UnsupportedFormat, error.Kind);
        Assert.Contains("downgrade", error.Message, StringComparison.Ordinal);

        // Accepted while migrating (plaintext allowed), as plaintext is.
        Assert.Contains("Ann", Create(kind, Policy(PlaintextPolicy.WriteEncryptedReadBoth)).Decrypt(format3, _encryptor).Utf8(), StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Read_EscapedNamesAndBase64_AreReadLikeTheirPlainSpelling(JsonProcessor kind)
    {
        string encrypted = Encrypt(JsonProcessor.Stream, """{"id":"1","address":{"city":"SECRET-c"}}""").Utf8()
            .Replace("\"address\"", "\"\\u0061ddress\"", StringComparison.Ordinal)
            .Replace("\"city\"", "\"c\\u0069ty\"", StringComparison.Ordinal);

        JsonAssert.Equivalent("""{"id":"1","address":{"city":"SECRET-c"}}""", Create(kind, Policy()).Decrypt(encrypted.Utf8(), _encryptor).Utf8());
    }

    [Fact]
    public void DeterministicNestedSelector_GivesEqualCellsForEqualValues_InEveryElementAndBothProcessors()
    {
        var policy = new ContainerEncryptionPolicy(Dek, [new EncryptionPolicyIncludedPath("/cards/[]/number") { EncryptionType = PathEncryptionType.Deterministic }]) { Bind = false };
        const string Cards = """{"id":"1","cards":[{"number":"4111"},{"number":"4111"},{"number":"5500"}]}""";

        JObject stream = JObject.Parse(Encrypt(JsonProcessor.Stream, Cards, policy).Utf8());
        JObject newtonsoft = JObject.Parse(Encrypt(JsonProcessor.Newtonsoft, Cards, policy).Utf8());

        Assert.Equal((string?)stream["cards"]![0]!["number"], (string?)stream["cards"]![1]!["number"]);
        Assert.NotEqual((string?)stream["cards"]![0]!["number"], (string?)stream["cards"]![2]!["number"]);
        Assert.True(JToken.DeepEquals(stream, newtonsoft));

        // An object at a deterministic selector cannot be compared for equality: refused, as at the top level.
        Assert.Equal(EncryptionErrorKind.InvalidOptions, Assert.Throws<EncryptionException>(() => Encrypt(JsonProcessor.Stream, """{"id":"1","cards":[{"number":{"a":1}}]}""", policy)).Kind);
    }

    private static byte[] Tamper(byte[] document, string change)
    {
        JObject parsed = JObject.Parse(document.Utf8());
        JObject envelope = (JObject)parsed["_ei"]!;
        JArray paths = (JArray)envelope["_ep"]!;
        switch (change)
        {
            case "crit:xyz": envelope["_ev"]!["crit"] = new JArray("sel", "xyz"); break;
            case "crit:bind": envelope["_ev"]!["crit"] = new JArray("sel", "bind"); break;
            case "crit:commit": envelope["_ev"]!["crit"] = new JArray("commit", "sel"); break;
            case "crit:empty": envelope["_ev"]!["crit"] = new JArray(); break;
            case "v:2": envelope["_ev"]!["v"] = 2; break;
            case "ev:missing": envelope.Remove("_ev"); break;
            case "ef:3": envelope["_ef"] = 3; break;
            case "anchor:missing": parsed.Remove("_ex"); break;
            case "anchor:changed": parsed["_ex"] = "7AEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQ=="; break;
            case "ep:anchor-not-first": envelope["_ep"] = new JArray(paths.Skip(1).Append(paths[0])); break;
            case "ep:no-anchor": envelope["_ep"] = new JArray(paths.Skip(1)); break;
            case "ep:overlap": paths.Add("/address"); break;
            case "ep:drop-city": paths.Remove(paths.First(p => (string?)p == "/address/city")); break;
            case "value:plain": parsed["address"]!["city"] = 5; break;
            default: throw new ArgumentOutOfRangeException(nameof(change));
        }

        return parsed.ToString(Newtonsoft.Json.Formatting.None).Utf8();
    }
}

using System.Buffers;
using System.Text;
using Encryption.Custom.Json;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Json;

/// <summary>
/// The read side of a container policy inside both processors (documents and feed pages), and the case-variant
/// check of encryption: the two processors agree on every outcome.
/// </summary>
public sealed class PolicyReadCheckTests : IDisposable
{
    private const string Secret = "078-05-1120";

    private readonly DataEncryptionKey _key1 = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
    private readonly DataEncryptionKey _key2 = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
    private readonly TestEncryptor _encryptor = new();

    public PolicyReadCheckTests()
    {
        _encryptor.Add("dek1", _key1).Add("dek2", _key2);
    }

    public static TheoryData<JsonProcessor> Processors => [JsonProcessor.Stream, JsonProcessor.Newtonsoft];

    public void Dispose()
    {
        _key1.Dispose();
        _key2.Dispose();
    }

    private static EncryptionProcessor Create(JsonProcessor kind, ContainerEncryptionPolicy? policy) => kind == JsonProcessor.Stream
        ? new StreamProcessor() { Rules = policy?.Rules }
        : new NewtonsoftProcessor() { Rules = policy?.Rules };

    private static ContainerEncryptionPolicy Policy(PlaintextPolicy mode = PlaintextPolicy.WriteEncryptedForbidPlaintext, string dek = "dek1", params string[] accepted) =>
        new(dek, ["/ssn", "/salary"]) { PlaintextPolicy = mode, AcceptedDataEncryptionKeyIds = accepted };

    private byte[] Encrypted(string dek = "dek1", params string[] paths) =>
        new StreamProcessor().Encrypt(
            $$"""{"id":"doc-1","pk":"p","ssn":"{{Secret}}","salary":5,"name":"a"}""",
            dek == "dek1" ? _key1 : _key2,
            new EncryptionOptions { DataEncryptionKeyId = dek, PathsToEncrypt = paths.Length == 0 ? ["/ssn", "/salary"] : paths });

    private static byte[] Tamper(byte[] document, Action<JObject> change)
    {
        JObject parsed = JObject.Parse(document.Utf8());
        change(parsed);
        return parsed.ToString(Newtonsoft.Json.Formatting.None).Utf8();
    }

    private byte[] PlaintextSubstituted() => Tamper(Encrypted(), d =>
    {
        d["ssn"] = Secret;
        d["_ei"]!["_ep"] = new JArray("/salary");
    });

    private byte[] Stripped() => Tamper(Encrypted(), d => d.Remove("_ei"));

    [Theory]
    [MemberData(nameof(Processors))]
    public void ForbidPlaintext_RefusesSubstitutedPlainAndCaseVariantDocuments_NamingIdAndPath(JsonProcessor kind)
    {
        EncryptionProcessor processor = Create(kind, Policy());
        byte[][] documents = [PlaintextSubstituted(), $$"""{"id":"doc-1","ssn":"{{Secret}}"}""".Utf8(), $$"""{"id":"doc-1","SSN":"{{Secret}}"}""".Utf8()];

        foreach (byte[] document in documents)
        {
            EncryptionException error = Assert.Throws<EncryptionException>(() => processor.Decrypt(document, new ArrayBufferWriter<byte>(), _encryptor));
            Assert.Equal(EncryptionErrorKind.PlaintextForbidden, error.Kind);
            Assert.Equal("/ssn", error.Path);
            Assert.Contains("'doc-1'", error.Message, StringComparison.Ordinal);
            Assert.DoesNotContain(Secret, error.ToString(), StringComparison.Ordinal);
        }
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public void ForbidPlaintext_AcceptsNullAbsentAndEncryptedValues_AndMorePathsThanThePolicy(JsonProcessor kind)
    {
        EncryptionProcessor processor = Create(kind, Policy());

        JObject nulls = JObject.Parse(processor.Decrypt("""{"id":"a","ssn":null,"other":1}""".Utf8(), _encryptor).Utf8());
        JObject encrypted = JObject.Parse(processor.Decrypt(Encrypted(), _encryptor).Utf8());
        JObject more = JObject.Parse(processor.Decrypt(Encrypted("dek1", "/ssn", "/salary", "/name"), _encryptor).Utf8());

        Assert.Equal(JTokenType.Null, nulls["ssn"]!.Type);
        Assert.Equal(Secret, (string?)encrypted["ssn"]);
        Assert.Equal("a", (string?)more["name"]);
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public void ReadBothModes_PassPlaintextThrough(JsonProcessor kind)
    {
        foreach (PlaintextPolicy mode in new[] { PlaintextPolicy.WriteEncryptedReadBoth, PlaintextPolicy.WritePlaintextReadBoth })
        {
            EncryptionProcessor processor = Create(kind, Policy(mode));

            Assert.Equal(Secret, (string?)JObject.Parse(processor.Decrypt(PlaintextSubstituted(), _encryptor).Utf8())["ssn"]);
        }
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public void CipherTextWithoutMetadata_IsRefusedInEveryMode_NeverReturnedAsTheValue(JsonProcessor kind)
    {
        foreach (PlaintextPolicy mode in Enum.GetValues<PlaintextPolicy>())
        {
            EncryptionProcessor processor = Create(kind, Policy(mode));

            // The envelope dropped (a writer without encryption), or rewritten to list less than the document holds.
            foreach (byte[] document in new[] { Stripped(), Tamper(Encrypted(), d => d["_ei"]!["_ep"] = new JArray("/salary")) })
            {
                EncryptionException error = Assert.Throws<EncryptionException>(() => processor.Decrypt(document, new ArrayBufferWriter<byte>(), _encryptor));
                Assert.Equal(EncryptionErrorKind.UnlistedCipherText, error.Kind);
                Assert.Equal("/ssn", error.Path);
                Assert.Equal("dek1", error.DataEncryptionKeyId);
                Assert.Contains("'doc-1'", error.Message, StringComparison.Ordinal);
            }

            // Shaped like a cell, but no key of the policy authenticates it: tampered, never plaintext.
            byte[] tampered = Tamper(Stripped(), d => d["ssn"] = FlipLastByte((string)d["ssn"]!));
            Assert.Equal(EncryptionErrorKind.InvalidCipherText, Assert.Throws<EncryptionException>(() => processor.Decrypt(tampered, new ArrayBufferWriter<byte>(), _encryptor)).Kind);

            // Under a case variant of the policy's name, too.
            byte[] renamed = Tamper(Stripped(), d =>
            {
                d["SSN"] = d["ssn"];
                d.Remove("ssn");
            });
            Assert.Equal(EncryptionErrorKind.UnlistedCipherText, Assert.Throws<EncryptionException>(() => processor.Decrypt(renamed, new ArrayBufferWriter<byte>(), _encryptor)).Kind);
        }
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public void CaseVariantName_IsPlaintextAtThePolicyPath(JsonProcessor kind)
    {
        // A genuine document whose ssn was removed and SSN added: serializers bind SSN to the ssn member.
        byte[] document = Tamper(Encrypted(), d =>
        {
            d.Remove("ssn");
            d["_ei"]!["_ep"] = new JArray("/salary");
            d["Ssn"] = Secret;
        });

        EncryptionException error = Assert.Throws<EncryptionException>(() => Create(kind, Policy()).Decrypt(document, new ArrayBufferWriter<byte>(), _encryptor));
        Assert.Equal(EncryptionErrorKind.PlaintextForbidden, error.Kind);
        Assert.Equal("/ssn", error.Path);
        Assert.DoesNotContain(Secret, error.ToString(), StringComparison.Ordinal);

        // A case variant holding null carries nothing; the read-both modes pass plaintext through.
        Create(kind, Policy()).Decrypt(Tamper(Encrypted(), d => d["SSN"] = null), new ArrayBufferWriter<byte>(), _encryptor);
        Assert.Equal(Secret, (string?)JObject.Parse(Create(kind, Policy(PlaintextPolicy.WriteEncryptedReadBoth)).Decrypt(document, _encryptor).Utf8())["Ssn"]);
    }

    private static string FlipLastByte(string base64)
    {
        byte[] bytes = Convert.FromBase64String(base64);
        bytes[^1] ^= 1;
        return Convert.ToBase64String(bytes);
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public void OtherKey_IsRefusedBeforeItIsLoaded_UnlessAccepted(JsonProcessor kind)
    {
        byte[] document = Encrypted("dek1");
        EncryptionProcessor strict = Create(kind, Policy(dek: "dek2"));
        int lookups = _encryptor.Lookups;

        EncryptionException error = Assert.Throws<EncryptionException>(() => strict.Decrypt(document, new ArrayBufferWriter<byte>(), _encryptor));

        Assert.Equal(EncryptionErrorKind.KeyNotAccepted, error.Kind);
        Assert.Equal("dek1", error.DataEncryptionKeyId);
        Assert.Equal(lookups, _encryptor.Lookups);
        EncryptionProcessor rotating = Create(kind, Policy(dek: "dek2", accepted: ["dek1"]));
        Assert.Equal(Secret, (string?)JObject.Parse(rotating.Decrypt(document, _encryptor).Utf8())["ssn"]);
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public void FeedPage_PlaintextDocumentFailsAlone(JsonProcessor kind)
    {
        EncryptionProcessor processor = Create(kind, Policy());
        byte[] page = Encoding.UTF8.GetBytes(
            "{\"_rid\":\"r\",\"Documents\":[" + Encrypted().Utf8() + "," + $$"""{"id":"doc-1","ssn":"{{Secret}}"}""" + "," + Encrypted().Utf8() + "],\"_count\":3}");

        var output = new ArrayBufferWriter<byte>();
        FeedPageDecryptionResult result = processor.DecryptFeedPage(page, output, _encryptor, new FeedPageDecryptionOptions { FailureMode = FeedItemFailureMode.ReportPerItem });
        EncryptionException failPage = Assert.Throws<EncryptionException>(() => processor.DecryptFeedPage(page, new ArrayBufferWriter<byte>(), _encryptor));

        Assert.Equal(2, result.DecryptedCount);
        FeedItemDecryptionFailure failure = Assert.Single(result.Failures);
        Assert.Equal(1, failure.Index);
        Assert.Equal("doc-1", failure.Id);
        Assert.Equal(EncryptionErrorKind.PlaintextForbidden, failure.Exception.Kind);
        Assert.Equal(EncryptionErrorKind.PlaintextForbidden, failPage.Kind);
        Assert.Equal("/ssn", failPage.Path);
        Assert.Contains("'doc-1'", failPage.Message, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public void WithoutPolicy_NothingChanges(JsonProcessor kind)
    {
        EncryptionProcessor processor = Create(kind, null);

        Assert.Equal(Secret, (string?)JObject.Parse(processor.Decrypt(PlaintextSubstituted(), _encryptor).Utf8())["ssn"]);
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public void Encrypt_PropertyDifferingFromAPathOnlyInCase_IsRefusedNamingBoth(JsonProcessor kind)
    {
        EncryptionProcessor processor = EncryptionProcessor.Create(kind);
        var options = new EncryptionOptions { DataEncryptionKeyId = "dek1", PathsToEncrypt = ["/Ssn", "/salary"] };
        var output = new ArrayBufferWriter<byte>();

        EncryptionException error = Assert.Throws<EncryptionException>(() => processor.Encrypt($$"""{"id":"a","ssn":"{{Secret}}"}""".Utf8(), output, _key1, options));
        EncryptionException escaped = Assert.Throws<EncryptionException>(() => processor.Encrypt("""{"id":"a","S\u0041LARY":1}""".Utf8(), new ArrayBufferWriter<byte>(), _key1, options));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Equal("/Ssn", error.Path);
        Assert.Contains("'/ssn'", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(Secret, error.ToString(), StringComparison.Ordinal);
        Assert.Equal("/salary", escaped.Path);

        // Exact names, and names that only share a length, are fine.
        JObject fine = JObject.Parse(processor.Encrypt("""{"id":"a","Ssn":"x","sxn":"y","salary":1}""", _key1, options).Utf8());
        Assert.Equal(new[] { "/Ssn", "/salary" }, fine["_ei"]!["_ep"]!.Select(p => (string)p!));
    }
}

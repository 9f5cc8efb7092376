using System.Buffers;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Json.Tokens;

/// <summary>
/// Query tokens in documents (docs/wire-format.md "Query tokens"): both processors write the same <c>_q</c> and
/// <c>qt</c>, every writer/reader pair round-trips and removes them, and a strict reader refuses tokens that do not
/// belong to the document's values (copied, stale, dropped, added) and documents that lack them.
/// </summary>
public sealed class QueryTokenDocumentTests : IDisposable
{
    private const string Ada = """{"id":"ada","pk":"p","name":"Ada Lovelace","age":36,"dob":"1815-12-10T00:00:00Z","ssn":"078-05-1120"}""";
    private const string Bob = """{"id":"bob","pk":"p","name":"Bob","age":41,"dob":"1983-01-02T03:04:05.5+01:00","ssn":"219-09-9999"}""";

    private readonly DataEncryptionKey _key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
    private readonly TestEncryptor _encryptor = new();

    public QueryTokenDocumentTests() => _encryptor.Add("dek1", _key);

    public void Dispose() => _key.Dispose();

    internal static ContainerEncryptionPolicy Policy(PlaintextPolicy mode = PlaintextPolicy.WriteEncryptedForbidPlaintext) => new("dek1",
    [
        new EncryptionPolicyIncludedPath("/name") { Queries = new PrefixQueryOptions { MinLength = 1, MaxLength = 6, IgnoreCase = true } },
        new EncryptionPolicyIncludedPath("/age") { Queries = new IntegerRangeQueryOptions(0, 150) },
        new EncryptionPolicyIncludedPath("/dob") { Queries = new DateTimeRangeQueryOptions(new DateTimeOffset(1800, 1, 1, 0, 0, 0, TimeSpan.Zero), new DateTimeOffset(2100, 1, 1, 0, 0, 0, TimeSpan.Zero)) },
        new EncryptionPolicyIncludedPath("/ssn"),
    ])
    { PlaintextPolicy = mode };

    private static EncryptionProcessor Create(JsonProcessor kind, ContainerEncryptionPolicy policy) => kind == JsonProcessor.Stream
        ? new StreamProcessor() { Rules = policy.Rules }
        : new NewtonsoftProcessor() { Rules = policy.Rules };

    private JObject Encrypt(JsonProcessor kind, string document = Ada) =>
        JObject.Parse(Create(kind, Policy()).Encrypt(document, _key, Policy().CreateWriteOptions()).Utf8());

    private byte[] Decrypt(JsonProcessor kind, JObject stored, PlaintextPolicy mode = PlaintextPolicy.WriteEncryptedForbidPlaintext)
    {
        var output = new ArrayBufferWriter<byte>();
        Create(kind, Policy(mode)).Decrypt(stored.ToString(Newtonsoft.Json.Formatting.None).Utf8(), output, _encryptor);
        return output.WrittenSpan.ToArray();
    }

    [Fact]
    public void BothWriters_WriteTheSameTokens_AndQtInCrit()
    {
        JObject stream = Encrypt(JsonProcessor.Stream);
        JObject newtonsoft = Encrypt(JsonProcessor.Newtonsoft);
        Assert.True(JToken.DeepEquals(stream["_q"], newtonsoft["_q"]));
        Assert.Equal(["qt"], stream["_ei"]!["_ev"]!["crit"]!.Values<string>());
        Assert.Equal(101, (int)stream["_ei"]!["_ef"]!);
        Assert.Equal(["/name", "/age", "/dob"], ((JObject)stream["_q"]!).Properties().Select(p => p.Name));
        Assert.Equal(6, stream["_q"]!["/name"]!.Count());
        Assert.Equal(Policy().Plan.GetQueryTokens(1)!.TokenCount, stream["_q"]!["/age"]!.Count());
        Assert.All(((JObject)stream["_q"]!).Properties().SelectMany(p => p.Value.Values<string>()), t => Assert.Equal(16, t!.Length));
        Assert.DoesNotContain("Ada", stream.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Processors.Pairs), MemberType = typeof(Processors))]
    public void EveryPair_RoundTrips_AndRemovesTheTokens(JsonProcessor writer, JsonProcessor reader)
    {
        Assert.True(JToken.DeepEquals(JObject.Parse(Ada), JObject.Parse(Decrypt(reader, Encrypt(writer)).Utf8())));
        Assert.True(JToken.DeepEquals(JObject.Parse(Bob), JObject.Parse(Decrypt(reader, Encrypt(writer, Bob)).Utf8())));
    }

    [Theory]
    [MemberData(nameof(Processors.Pairs), MemberType = typeof(Processors))]
    public void StrictReader_RefusesTokensThatDoNotBelong(JsonProcessor writer, JsonProcessor reader)
    {
        JObject bob = Encrypt(writer, Bob);
        Action<JObject>[] tampers =
        [
            d => d["_q"]!["/name"]![0] = bob["_q"]!["/name"]![0]!.DeepClone(), // a token copied from another document
            d => d["_q"]!["/age"] = bob["_q"]!["/age"]!.DeepClone(), // all of a path's tokens copied
            d => d["_q"]!["/name"] = d["_q"]!["/dob"]!.DeepClone(), // tokens of another path
            d => ((JObject)d["_q"]!).Remove("/age"), // dropped
            d => d["_q"]!["/ssn"] = new JArray("AAAAAAAAAAAAAAAA"), // a path without tokens
            d => ((JArray)d["_q"]!["/name"]!).RemoveAt(5), // one token fewer
            d => d["age"] = bob["age"]!.DeepClone(), // the value replaced, tokens left stale
        ];
        foreach (Action<JObject> tamper in tampers)
        {
            JObject stored = Encrypt(writer);
            tamper(stored);
            EncryptionException error = Assert.Throws<EncryptionException>(() => Decrypt(reader, stored));
            Assert.True(error.Kind is EncryptionErrorKind.CellBindingMismatch, $"{error.Kind}: {error.Message}");
            Assert.DoesNotContain("Lovelace", error.ToString(), StringComparison.Ordinal);
        }
    }

    [Theory]
    [MemberData(nameof(Processors.Pairs), MemberType = typeof(Processors))]
    public void StrictReader_RefusesDocumentsWithoutTokens_ReadBothModesReadThem(JsonProcessor writer, JsonProcessor reader)
    {
        JObject withoutQt = Encrypt(writer);
        withoutQt["_ei"]!["_ev"]!["crit"] = new JArray("sel");
        withoutQt.Remove("_q");
        Assert.Equal(EncryptionErrorKind.UnsupportedFormat, Assert.Throws<EncryptionException>(() => Decrypt(reader, withoutQt)).Kind);
        Assert.True(JToken.DeepEquals(JObject.Parse(Ada), JObject.Parse(Decrypt(reader, withoutQt, PlaintextPolicy.WriteEncryptedReadBoth).Utf8())));

        JObject missing = Encrypt(writer);
        missing.Remove("_q");
        Assert.Equal(EncryptionErrorKind.MalformedDocument, Assert.Throws<EncryptionException>(() => Decrypt(reader, missing, PlaintextPolicy.WriteEncryptedReadBoth)).Kind);

        JObject tampered = Encrypt(writer);
        tampered["_q"]!["/age"] = Encrypt(writer, Bob)["_q"]!["/age"]!.DeepClone();
        Assert.True(JToken.DeepEquals(JObject.Parse(Ada), JObject.Parse(Decrypt(reader, tampered, PlaintextPolicy.WriteEncryptedReadBoth).Utf8())));
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Writer_RefusesValuesTheDeclarationCannotHold(JsonProcessor writer)
    {
        (string Document, EncryptionErrorKind Kind, string Path)[] cases =
        [
            ("""{"id":"x","age":151}""", EncryptionErrorKind.LimitExceeded, "/age"),
            ("""{"id":"x","age":-1}""", EncryptionErrorKind.LimitExceeded, "/age"),
            ("""{"id":"x","age":36.5}""", EncryptionErrorKind.InvalidOptions, "/age"),
            ("""{"id":"x","age":99999999999999999999}""", EncryptionErrorKind.LimitExceeded, "/age"),
            ("""{"id":"x","age":"36"}""", EncryptionErrorKind.InvalidOptions, "/age"),
            ("""{"id":"x","dob":"1815-12-10T00:00:00"}""", EncryptionErrorKind.InvalidOptions, "/dob"),
            ("""{"id":"x","dob":"1700-12-10T00:00:00Z"}""", EncryptionErrorKind.LimitExceeded, "/dob"),
            ("""{"id":"x","name":42}""", EncryptionErrorKind.InvalidOptions, "/name"),
            ("""{"id":"x","name":"Ada","_q":{}}""", EncryptionErrorKind.MalformedDocument, "'_q'"),
        ];
        foreach ((string document, EncryptionErrorKind kind, string path) in cases)
        {
            EncryptionException error = Assert.Throws<EncryptionException>(() => Create(writer, Policy()).Encrypt(document, _key, Policy().CreateWriteOptions()));
            Assert.True(kind == error.Kind, $"{document}: {error.Kind} {error.Message}");
            Assert.Contains(path, error.Message, StringComparison.Ordinal);
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void NullOrAbsentValues_HaveNoMember(JsonProcessor writer)
    {
        JObject stored = Encrypt(writer, """{"id":"n","name":null,"age":7}""");
        Assert.Equal(["/age"], ((JObject)stored["_q"]!).Properties().Select(p => p.Name));
        Assert.True(JToken.DeepEquals(JObject.Parse("""{"id":"n","name":null,"age":7}"""), JObject.Parse(Decrypt(writer, stored).Utf8())));
    }
}

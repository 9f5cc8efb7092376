using System.Buffers;
using Encryption.Custom.Json;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Json.Tokens;

/// <summary>
/// Query tokens on nested selectors outside arrays (<c>/address/zip</c>: one value per document): both processors write
/// the same member under the selector's path, every pair round-trips, a strict reader checks them like a top-level
/// path's, and shapes that hold no value (address missing, null, not an object) have no member.
/// </summary>
public sealed class NestedQueryTokenDocumentTests : IDisposable
{
    private const string Ada = """{"id":"ada","pk":"p","name":"Ada","address":{"city":"London","zip":10115,"since":"1835-07-08T00:00:00Z"},"cards":[{"number":"4111"}]}""";
    private const string Bob = """{"id":"bob","pk":"p","name":"Bob","address":{"zip":20095,"city":"Hamburg"}}""";

    private readonly DataEncryptionKey _key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
    private readonly TestEncryptor _encryptor = new();

    public NestedQueryTokenDocumentTests() => _encryptor.Add("dek1", _key);

    public void Dispose() => _key.Dispose();

    internal static ContainerEncryptionPolicy Policy(PlaintextPolicy mode = PlaintextPolicy.WriteEncryptedForbidPlaintext) => new("dek1",
    [
        new EncryptionPolicyIncludedPath("/name") { Queries = new PrefixQueryOptions { MaxLength = 4 } },
        new EncryptionPolicyIncludedPath("/address/zip") { Queries = new IntegerRangeQueryOptions(0, 99999) },
        new EncryptionPolicyIncludedPath("/address/since") { Queries = new DateTimeRangeQueryOptions(new DateTimeOffset(1800, 1, 1, 0, 0, 0, TimeSpan.Zero), new DateTimeOffset(2100, 1, 1, 0, 0, 0, TimeSpan.Zero)) },
        new EncryptionPolicyIncludedPath("/cards/[]/number"),
    ])
    { PlaintextPolicy = mode };

    // Nested selectors bind by default: the rules of a container.
    private static PolicyRuleSet Rules(PlaintextPolicy mode = PlaintextPolicy.WriteEncryptedForbidPlaintext) =>
        Policy(mode).Rules.BindTo(new BindingTarget("db/c", ["/pk"]));

    private static EncryptionProcessor Create(JsonProcessor kind, PolicyRuleSet rules) => kind == JsonProcessor.Stream
        ? new StreamProcessor() { Rules = rules }
        : new NewtonsoftProcessor() { Rules = rules };

    private JObject Encrypt(JsonProcessor kind, string document = Ada) =>
        JObject.Parse(Create(kind, Rules()).Encrypt(document, _key, Rules().CreateWriteOptions()).Utf8());

    private byte[] Decrypt(JsonProcessor kind, JObject stored, PlaintextPolicy mode = PlaintextPolicy.WriteEncryptedForbidPlaintext)
    {
        var output = new ArrayBufferWriter<byte>();
        Create(kind, Rules(mode)).Decrypt(stored.ToString(Newtonsoft.Json.Formatting.None).Utf8(), output, _encryptor);
        return output.WrittenSpan.ToArray();
    }

    [Fact]
    public void BothWriters_WriteTheSameMembers_InThePlansOrder()
    {
        JObject stream = Encrypt(JsonProcessor.Stream);
        JObject newtonsoft = Encrypt(JsonProcessor.Newtonsoft);
        Assert.True(JToken.DeepEquals(stream["_q"], newtonsoft["_q"]));
        Assert.Equal(["/name", "/address/zip", "/address/since"], ((JObject)stream["_q"]!).Properties().Select(p => p.Name));
        Assert.Equal(Policy().Plan.GetQueryTokens(Policy().Plan.IndexOf("/address/zip"))!.TokenCount, stream["_q"]!["/address/zip"]!.Count());
        Assert.Equal(JTokenType.String, stream["address"]!["zip"]!.Type);
        Assert.DoesNotContain("10115", stream.ToString(), StringComparison.Ordinal);
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
    public void StrictReader_RefusesNestedTokensThatDoNotBelong(JsonProcessor writer, JsonProcessor reader)
    {
        JObject bob = Encrypt(writer, Bob);
        Action<JObject>[] tampers =
        [
            d => d["_q"]!["/address/zip"] = bob["_q"]!["/address/zip"]!.DeepClone(), // another document's tokens
            d => ((JObject)d["_q"]!).Remove("/address/zip"), // dropped
            d => d["_q"]!["/address/zip"] = d["_q"]!["/address/since"]!.DeepClone(), // another path's tokens
            d => d["address"]!["zip"] = bob["address"]!["zip"]!.DeepClone(), // the value replaced, tokens left stale
            d => d["_q"]!["/address/city"] = new JArray("AAAAAAAAAAAAAAAA"), // a path without a declaration
        ];
        foreach (Action<JObject> tamper in tampers)
        {
            JObject stored = Encrypt(writer);
            tamper(stored);
            EncryptionException error = Assert.Throws<EncryptionException>(() => Decrypt(reader, stored));
            Assert.True(error.Kind is EncryptionErrorKind.CellBindingMismatch, $"{error.Kind}: {error.Message}");
            Assert.DoesNotContain("10115", error.ToString(), StringComparison.Ordinal);
        }

        // A read-both reader removes the tokens without checking them.
        JObject stale = Encrypt(writer);
        stale["_q"]!["/address/zip"] = bob["_q"]!["/address/zip"]!.DeepClone();
        Assert.True(JToken.DeepEquals(JObject.Parse(Ada), JObject.Parse(Decrypt(reader, stale, PlaintextPolicy.WriteEncryptedReadBoth).Utf8())));
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void ShapesWithoutTheValue_HaveNoMember(JsonProcessor writer)
    {
        string[] documents =
        [
            """{"id":"a","name":"Al"}""",
            """{"id":"b","address":null}""",
            """{"id":"c","address":"unknown"}""",
            """{"id":"d","address":{"zip":null,"city":"Rome"}}""",
            """{"id":"e","address":[{"zip":1}]}""",
        ];
        foreach (string document in documents)
        {
            JObject stored = Encrypt(writer, document);
            Assert.DoesNotContain(((JObject)stored["_q"]!).Properties(), p => p.Name.StartsWith("/address", StringComparison.Ordinal));
            Assert.True(JToken.DeepEquals(JObject.Parse(document), JObject.Parse(Decrypt(writer, stored).Utf8())), document);
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Writer_RefusesNestedValuesTheDeclarationCannotHold(JsonProcessor writer)
    {
        (string Document, EncryptionErrorKind Kind)[] cases =
        [
            ("""{"id":"x","address":{"zip":100000}}""", EncryptionErrorKind.LimitExceeded),
            ("""{"id":"x","address":{"zip":"10115"}}""", EncryptionErrorKind.InvalidOptions),
            ("""{"id":"x","address":{"zip":{"code":1}}}""", EncryptionErrorKind.InvalidOptions),
            ("""{"id":"x","address":{"since":"1835-07-08"}}""", EncryptionErrorKind.InvalidOptions),
        ];
        foreach ((string document, EncryptionErrorKind kind) in cases)
        {
            EncryptionException error = Assert.Throws<EncryptionException>(() => Create(writer, Rules()).Encrypt(document, _key, Rules().CreateWriteOptions()));
            Assert.True(kind == error.Kind, $"{document}: {error.Kind} {error.Message}");
            Assert.Contains("/address/", error.Message, StringComparison.Ordinal);
        }
    }
}

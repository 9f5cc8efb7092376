using System.Buffers;
using System.Globalization;
using Encryption.Custom.Json;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using FsCheck;
using FsCheck.Fluent;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Json.Tokens;

/// <summary>
/// Generated documents with token paths at the top level and on nested selectors, values present, null or missing,
/// inside and at the ends of their domains, Unicode text and date-times in several offsets: both processors write the
/// same <c>_q</c>, and every writer/reader pair reads the document back (the strict reader recomputing every token).
/// </summary>
public sealed class QueryTokenAgreementPropertyTests : IDisposable
{
    private static readonly string[] s_letters = ["a", "Z", "\u00e9", "e\u0301", "\u0416", "\U0001F600", " ", "-"];

    private readonly DataEncryptionKey _key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
    private readonly TestEncryptor _encryptor = new();

    public QueryTokenAgreementPropertyTests() => _encryptor.Add("dek1", _key);

    public void Dispose() => _key.Dispose();

    private static readonly PolicyRuleSet s_rules = new ContainerEncryptionPolicy("dek1",
    [
        new EncryptionPolicyIncludedPath("/name") { Queries = new PrefixQueryOptions { MinLength = 1, MaxLength = 5, IgnoreCase = true } },
        new EncryptionPolicyIncludedPath("/age") { Queries = new IntegerRangeQueryOptions(-50, 150) },
        new EncryptionPolicyIncludedPath("/address/zip") { Queries = new IntegerRangeQueryOptions(0, 99999) { Sparsity = 1 } },
        new EncryptionPolicyIncludedPath("/address/since") { Queries = new DateTimeRangeQueryOptions(new DateTimeOffset(1900, 1, 1, 0, 0, 0, TimeSpan.Zero), new DateTimeOffset(2100, 1, 1, 0, 0, 0, TimeSpan.Zero)) },
        new EncryptionPolicyIncludedPath("/address/label") { Queries = new PrefixQueryOptions { MaxLength = 3 } },
        new EncryptionPolicyIncludedPath("/balance") { Queries = new DecimalRangeQueryOptions(-1000, 1000, 2) },
    ]).Rules.BindTo(new BindingTarget("db/c", ["/pk"]));

    private static Gen<JToken?> Optional(Gen<JToken> value) =>
        Gen.Frequency((1, Gen.Constant<JToken?>(null)), (1, Gen.Constant<JToken?>(JValue.CreateNull())), (6, value.Select(v => (JToken?)v)));

    private static Gen<JToken> Text(int max) =>
        from length in Gen.Choose(0, max)
        from letters in Gen.ArrayOf(Gen.Elements(s_letters), length)
        select (JToken)new JValue(string.Concat(letters));

    private static Gen<JObject> Documents() =>
        from name in Optional(Text(8))
        from age in Optional(Gen.Choose(-50, 150).Select(i => (JToken)new JValue(i)))
        from zip in Optional(Gen.Elements(0, 1, 99998, 99999).Select(i => (JToken)new JValue(i)))
        from since in Optional(Gen.Choose(0, 70_000).Zip(Gen.Elements(0, 60, -330, 840)).Select(t =>
            (JToken)new JValue(new DateTimeOffset(1901, 1, 1, 0, 0, 0, TimeSpan.Zero).AddDays(t.Item1).ToOffset(TimeSpan.FromMinutes(t.Item2)).ToString("yyyy-MM-ddTHH:mm:ss.fffzzz", CultureInfo.InvariantCulture))))
        from label in Optional(Text(5))
        from balance in Optional(Gen.Choose(-100_000, 100_000).Select(c => (JToken)new JValue(c / 100.0)))
        from addressShape in Gen.Choose(0, 3)
        select Build(name, age, zip, since, label, balance, addressShape);

    private static JObject Build(JToken? name, JToken? age, JToken? zip, JToken? since, JToken? label, JToken? balance, int addressShape)
    {
        var document = new JObject { ["id"] = "d", ["pk"] = "p" };
        Add(document, "name", name);
        Add(document, "age", age);
        Add(document, "balance", balance);
        switch (addressShape)
        {
            case 0:
                break; // no address
            case 1:
                document["address"] = JValue.CreateNull();
                break;
            case 2:
                document["address"] = "not an object";
                break;
            default:
                var address = new JObject { ["city"] = "x" };
                Add(address, "zip", zip);
                Add(address, "since", since);
                Add(address, "label", label);
                document["address"] = address;
                break;
        }

        return document;
    }

    private static void Add(JObject target, string name, JToken? value)
    {
        if (value is not null)
        {
            target[name] = value;
        }
    }

    // Date-time strings stay strings (Newtonsoft would turn them into dates and compare them as such).
    private static JObject Parse(string json)
    {
        using var reader = new Newtonsoft.Json.JsonTextReader(new StringReader(json)) { DateParseHandling = Newtonsoft.Json.DateParseHandling.None };
        return JObject.Load(reader);
    }

    private static EncryptionProcessor Create(JsonProcessor kind) => kind == JsonProcessor.Stream
        ? new StreamProcessor() { Rules = s_rules }
        : new NewtonsoftProcessor() { Rules = s_rules };

    [Fact]
    public void GeneratedDocuments_BothWritersAgreeOnTheTokens_AndEveryPairReadsThemBack()
    {
        Prop.ForAll(Documents().ToArbitrary(), document =>
        {
            string plain = document.ToString(Newtonsoft.Json.Formatting.None);
            JObject stream = JObject.Parse(Create(JsonProcessor.Stream).Encrypt(plain, _key, s_rules.CreateWriteOptions()).Utf8());
            JObject newtonsoft = JObject.Parse(Create(JsonProcessor.Newtonsoft).Encrypt(plain, _key, s_rules.CreateWriteOptions()).Utf8());
            Assert.True(JToken.DeepEquals(stream["_q"], newtonsoft["_q"]), $"{plain}: {stream["_q"]} vs {newtonsoft["_q"]}");
            foreach (JObject stored in new[] { stream, newtonsoft })
            {
                foreach (JsonProcessor reader in new[] { JsonProcessor.Stream, JsonProcessor.Newtonsoft })
                {
                    var output = new ArrayBufferWriter<byte>();
                    Create(reader).Decrypt(stored.ToString(Newtonsoft.Json.Formatting.None).Utf8(), output, _encryptor);
                    Assert.True(JToken.DeepEquals(document, Parse(output.WrittenSpan.ToArray().Utf8())), $"{reader}: {plain}");
                }
            }
        }).Check(Config.QuickThrowOnFailure.WithMaxTest(150));
    }
}

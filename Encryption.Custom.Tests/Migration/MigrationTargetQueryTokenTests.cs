using System.Buffers;
using System.Text;
using Encryption.Custom.Json;
using Encryption.Custom.Json.Inspection;
using Encryption.Custom.Keys;
using Encryption.Custom.Migration;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using FsCheck;
using FsCheck.Fluent;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Migration;

/// <summary>
/// Query tokens in the migration's target state (docs/migration.md, "Query tokens"): a document is in the target state
/// only when its <c>_q</c> is exactly what the target declares (members without the key; with it, each value's tokens
/// too); missing, stale and extra tokens put it outside, and the rewrite the job does (decrypt, encrypt by the target)
/// brings it in; a <c>_q</c> no writer of this library produces is refused, never rewritten over.
/// </summary>
public sealed class MigrationTargetQueryTokenTests : IDisposable
{
    private const string Ada = """{"id":"ada","pk":"p","name":"Ada Lovelace","age":36,"ssn":"078-05-1120"}""";
    private const string Bob = """{"id":"bob","pk":"p","name":"Bob","age":41,"ssn":"219-09-9999"}""";

    private readonly DataEncryptionKey _key1 = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
    private readonly DataEncryptionKey _key2 = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
    private readonly TestEncryptor _encryptor = new();

    public MigrationTargetQueryTokenTests() => _encryptor.Add("dek1", _key1).Add("dek2", _key2);

    public void Dispose()
    {
        _key1.Dispose();
        _key2.Dispose();
    }

    // Per token path: 0 no declaration, 1 or 2 two declarations that give other tokens for the same value.
    private static ContainerEncryptionPolicy Policy(int age, int name, string keyId = "dek1") => new(keyId,
    [
        new EncryptionPolicyIncludedPath("/name")
        {
            Queries = name switch { 0 => null, 1 => new PrefixQueryOptions { MaxLength = 6 }, _ => new PrefixQueryOptions { MaxLength = 8, IgnoreCase = true } },
        },
        new EncryptionPolicyIncludedPath("/age")
        {
            Queries = age switch { 0 => null, 1 => new IntegerRangeQueryOptions(0, 150), _ => new IntegerRangeQueryOptions(0, 1000) },
        },
        new EncryptionPolicyIncludedPath("/ssn"),
    ]);

    private static EncryptionProcessor Create(JsonProcessor kind, ContainerEncryptionPolicy? policy) => kind == JsonProcessor.Stream
        ? new StreamProcessor() { Rules = policy?.Rules }
        : new NewtonsoftProcessor() { Rules = policy?.Rules };

    private byte[] Write(JsonProcessor kind, ContainerEncryptionPolicy policy, string document, DataEncryptionKey? key = null) =>
        Create(kind, policy).Encrypt(document, key ?? _key1, policy.CreateWriteOptions());

    // The job's rewrite: decrypted by a processor without a policy (tokens removed unchecked), encrypted by the target.
    private byte[] Rewrite(JsonProcessor kind, ContainerEncryptionPolicy target, byte[] stored)
    {
        var plain = new ArrayBufferWriter<byte>();
        Create(kind, null).Decrypt(stored, plain, _encryptor);
        return Write(kind, target, Encoding.UTF8.GetString(plain.WrittenSpan));
    }

    private static DocumentState Classify(MigrationTarget target, byte[] document)
    {
        using DataEncryptionKeyLease checkKey = target.LeaseCheckKeyAsync(CancellationToken.None).AsTask().GetAwaiter().GetResult();
        return target.Classify(document, checkKey);
    }

    private MigrationTarget Target(ContainerEncryptionPolicy? policy, JsonProcessor kind, bool withKey) =>
        new(policy, ["dek2"], withKey ? _encryptor : null, kind);

    [Fact]
    public void GeneratedPolicyChanges_InTargetExactlyWhenTheTokensAreTheTargets_AndTheRewriteBringsThemIn()
    {
        // What the document was written with and what the target declares, per token path; the values, null or not.
        Arbitrary<(int, int, int, int, int, string?, bool)> cases = (
            from written in Gen.Choose(0, 8)
            from declared in Gen.Choose(0, 8)
            from age in Gen.Choose(-1, 150)
            from name in Gen.Elements<string?>(null, "A", "Ada Lovelace", "zoë", "Ünïcode prefix", "x")
            from newtonsoft in Gen.Elements(false, true)
            select (written / 3, written % 3, declared / 3, declared % 3, age, name, newtonsoft)).ToArbitrary();

        Prop.ForAll(cases, generated =>
        {
            (int writtenAge, int writtenName, int targetAge, int targetName, int age, string? name, bool newtonsoft) = generated;
            JsonProcessor kind = newtonsoft ? JsonProcessor.Newtonsoft : JsonProcessor.Stream;
            var document = new JObject { ["id"] = "1", ["pk"] = "p", ["age"] = age < 0 ? JValue.CreateNull() : age, ["name"] = name, ["ssn"] = "078" };
            ContainerEncryptionPolicy target = Policy(targetAge, targetName);
            byte[] stored = Write(kind, Policy(writtenAge, writtenName), document.ToString(Newtonsoft.Json.Formatting.None));

            // A path whose value is null has no tokens under any declaration; whether the policy has tokens at all
            // decides the 'qt' feature (and the format).
            bool sameFeature = (writtenAge | writtenName) != 0 == ((targetAge | targetName) != 0);
            bool sameMembers = sameFeature && (age < 0 || (writtenAge != 0) == (targetAge != 0)) && (name is null || (writtenName != 0) == (targetName != 0));
            bool sameTokens = sameFeature && (age < 0 || writtenAge == targetAge) && (name is null || writtenName == targetName);

            DocumentState keyless = Classify(Target(target, kind, withKey: false), stored);
            DocumentState keyed = Classify(Target(target, kind, withKey: true), stored);
            byte[] rewritten = Rewrite(kind, target, stored);
            return keyless.InTarget == sameMembers && keyless.HasStaleQueryTokens == !sameMembers
                && keyed.InTarget == sameTokens && keyed.HasStaleQueryTokens == !sameTokens
                && Classify(Target(target, kind, withKey: true), rewritten) is { InTarget: true, HasStaleQueryTokens: false }
                && Classify(Target(target, kind, withKey: false), rewritten).InTarget;
        }).QuickCheckThrowOnFailure();
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void StaleTokens_OnlyTheKeySeesThem_AndTheRewriteReplacesThem(JsonProcessor kind)
    {
        ContainerEncryptionPolicy policy = Policy(1, 1);
        JObject ada = JObject.Parse(Write(kind, policy, Ada).Utf8());
        JObject bob = JObject.Parse(Write(kind, policy, Bob).Utf8());
        JObject adaUnderDek2 = JObject.Parse(Write(kind, Policy(1, 1, "dek2"), Ada, _key2).Utf8());
        Action<JObject>[] stale =
        [
            d => d["_q"]!["/age"] = bob["_q"]!["/age"]!.DeepClone(), // the value changed under its tokens
            d => d["_q"] = adaUnderDek2["_q"]!.DeepClone(), // tokens of the same values under another key
            d => d["_q"]!["/name"]![0] = d["_q"]!["/name"]![1]!.DeepClone(), // one token wrong
            d => ((JArray)d["_q"]!["/age"]!).RemoveAt(0), // one token fewer
        ];

        foreach (Action<JObject> change in stale)
        {
            JObject copy = (JObject)ada.DeepClone();
            change(copy);
            byte[] stored = copy.ToString(Newtonsoft.Json.Formatting.None).Utf8();

            Assert.True(Classify(Target(policy, kind, withKey: false), stored).InTarget);
            DocumentState state = Classify(Target(policy, kind, withKey: true), stored);
            Assert.Equal((false, true), (state.InTarget, state.HasStaleQueryTokens));
            Assert.True(Classify(Target(policy, kind, withKey: true), Rewrite(kind, policy, stored)).InTarget);
        }

        Assert.True(Classify(Target(policy, kind, withKey: true), ada.ToString(Newtonsoft.Json.Formatting.None).Utf8()).InTarget);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void NestedTokenPaths_AreJudgedLikeTopLevelOnes(JsonProcessor kind)
    {
        var policy = new ContainerEncryptionPolicy("dek1",
        [
            new EncryptionPolicyIncludedPath("/address/zip") { Queries = new IntegerRangeQueryOptions(0, 99999) },
            new EncryptionPolicyIncludedPath("/address/city"),
        ]) { Bind = false };
        JObject ada = JObject.Parse(Write(kind, policy, """{"id":"ada","pk":"p","address":{"zip":10115,"city":"Berlin"}}""").Utf8());
        JObject bob = JObject.Parse(Write(kind, policy, """{"id":"bob","pk":"p","address":{"zip":20095,"city":"Hamburg"}}""").Utf8());
        byte[] Stored(Action<JObject> change)
        {
            JObject copy = (JObject)ada.DeepClone();
            change(copy);
            return copy.ToString(Newtonsoft.Json.Formatting.None).Utf8();
        }

        // In the target, with and without the key; so are documents whose address holds no zip (no member due).
        foreach (string document in new[] { """{"id":"n","pk":"p"}""", """{"id":"n","pk":"p","address":null}""", """{"id":"n","pk":"p","address":{"zip":null,"city":"Rome"}}""", """{"id":"n","pk":"p","address":"none"}""" })
        {
            Assert.True(Classify(Target(policy, kind, withKey: true), Write(kind, policy, document)).InTarget, document);
            Assert.True(Classify(Target(policy, kind, withKey: false), Write(kind, policy, document)).InTarget, document);
        }

        Assert.True(Classify(Target(policy, kind, withKey: true), Stored(_ => { })).InTarget);

        // Stale: only the key sees it, and the rewrite replaces it.
        byte[] stale = Stored(d => d["_q"]!["/address/zip"] = bob["_q"]!["/address/zip"]!.DeepClone());
        Assert.True(Classify(Target(policy, kind, withKey: false), stale).InTarget);
        Assert.Equal((false, true), (Classify(Target(policy, kind, withKey: true), stale).InTarget, Classify(Target(policy, kind, withKey: true), stale).HasStaleQueryTokens));
        Assert.True(Classify(Target(policy, kind, withKey: true), Rewrite(kind, policy, stale)).InTarget);

        // Missing: outside with or without the key.
        byte[] missing = Stored(d => ((JObject)d["_q"]!).Remove("/address/zip"));
        Assert.False(Classify(Target(policy, kind, withKey: false), missing).InTarget);
        Assert.False(Classify(Target(policy, kind, withKey: true), missing).InTarget);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void BoundCells_TokensAreCheckedOnceTheContainerIsKnown(JsonProcessor kind)
    {
        var policy = new ContainerEncryptionPolicy("dek1",
        [
            new EncryptionPolicyIncludedPath("/age") { Queries = new IntegerRangeQueryOptions(0, 150) },
            new EncryptionPolicyIncludedPath("/address/zip") { Queries = new IntegerRangeQueryOptions(0, 99999) },
        ]) { Bind = true };
        var container = new Encryption.Custom.Json.WireFormat.BindingTarget("db/c", ["/pk"]);
        byte[] Written(string document) => Create(kind, policy).Encrypt(document, _key1, policy.Rules.BindTo(container).CreateWriteOptions());
        JObject ada = JObject.Parse(Written("""{"id":"ada","pk":"p","age":36,"address":{"zip":10115}}""").Utf8());
        JObject bob = JObject.Parse(Written("""{"id":"bob","pk":"p","age":41,"address":{"zip":20095}}""").Utf8());
        MigrationTarget Bound()
        {
            MigrationTarget target = Target(policy, kind, withKey: true);
            target.Bind("db/c", ["/pk"]);
            return target;
        }

        Assert.True(Classify(Bound(), ada.ToString(Newtonsoft.Json.Formatting.None).Utf8()).InTarget);
        foreach (string path in new[] { "/age", "/address/zip" })
        {
            JObject stale = (JObject)ada.DeepClone();
            stale["_q"]![path] = bob["_q"]![path]!.DeepClone();
            byte[] stored = stale.ToString(Newtonsoft.Json.Formatting.None).Utf8();

            // Without the container the bound cells cannot be decrypted: only the members are judged.
            Assert.True(Classify(Target(policy, kind, withKey: true), stored).InTarget, path);
            DocumentState state = Classify(Bound(), stored);
            Assert.Equal((false, true), (state.InTarget, state.HasStaleQueryTokens));
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void MissingAndExtraMembers_AreOutsideTheTarget_WithOrWithoutTheKey(JsonProcessor kind)
    {
        ContainerEncryptionPolicy policy = Policy(1, 1);
        JObject ada = JObject.Parse(Write(kind, policy, Ada).Utf8());
        Action<JObject>[] changes =
        [
            d => ((JObject)d["_q"]!).Remove("/age"),
            d => d["_q"]!["/ssn"] = d["_q"]!["/age"]!.DeepClone(),
            d => d["_q"]!["/other"] = new JArray(),
        ];

        foreach (Action<JObject> change in changes)
        {
            JObject copy = (JObject)ada.DeepClone();
            change(copy);
            byte[] stored = copy.ToString(Newtonsoft.Json.Formatting.None).Utf8();
            foreach (bool withKey in new[] { false, true })
            {
                DocumentState state = Classify(Target(policy, kind, withKey), stored);
                Assert.False(state.InTarget);
                Assert.True(state.HasStaleQueryTokens);
            }
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void MalformedTokens_AreRefused_NamingWhy_NeverAValueOrAToken(JsonProcessor kind)
    {
        ContainerEncryptionPolicy policy = Policy(1, 1);
        JObject ada = JObject.Parse(Write(kind, policy, Ada).Utf8());
        string token = (string)ada["_q"]!["/age"]![0]!;
        string[] malformed =
        [
            Replace(ada, d => d["_q"]!["/age"] = token),
            Replace(ada, d => d["_q"]!["/age"]![0] = 12),
            Replace(ada, d => d["_q"]!["/age"]![0] = "not a token!"),
            Replace(ada, d => d["_q"]!["/age"]![0] = "QUJD"), // base64url of 3 bytes: no token is that short
            Replace(ada, d => d["_q"]!["/age"]!.Last!.AddAfterSelf(new JObject())),
            Replace(ada, d => d["_q"] = new JArray()),
            Replace(ada, d => d["_q"] = "x"),
            Replace(ada, _ => { }).Replace("\"/age\":[", "\"/age\":[],\"/age\":[", StringComparison.Ordinal), // a member twice
        ];

        foreach (string document in malformed)
        {
            foreach (ContainerEncryptionPolicy? target in new[] { policy, Policy(0, 0), null })
            {
                foreach (bool withKey in new[] { false, true })
                {
                    EncryptionException error = Assert.Throws<EncryptionException>(() => Classify(Target(target, kind, withKey), document.Utf8()));
                    Assert.True(error.Kind is EncryptionErrorKind.CellBindingMismatch or EncryptionErrorKind.MalformedDocument, error.ToString());
                    Assert.DoesNotContain(token, error.Message, StringComparison.Ordinal);
                    Assert.DoesNotContain("Ada", error.Message, StringComparison.Ordinal);
                }
            }
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void DroppingEveryDeclaration_DropsTheTokens_AndIsNotDestructive(JsonProcessor kind)
    {
        ContainerEncryptionPolicy written = Policy(1, 1);
        ContainerEncryptionPolicy target = Policy(0, 0);
        byte[] stored = Write(kind, written, Ada);

        DocumentState state = Classify(Target(target, kind, withKey: true), stored);
        byte[] rewritten = Rewrite(kind, target, stored);

        Assert.Equal((false, true, false, false), (state.InTarget, state.HasStaleQueryTokens, state.HasOtherPaths, state.HasPlaintext));
        Assert.Empty(TargetComparison.Compare(target, new Dictionary<string, PathUse> { ["/name"] = new(1, 0, 1), ["/age"] = new(1, 0, 1), ["/ssn"] = new(1, 0, 1) }, [], []));
        Assert.Null(JObject.Parse(rewritten.Utf8())["_q"]);
        Assert.True(Classify(Target(target, kind, withKey: true), rewritten).InTarget);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Inspection_ReportsTheTokenMemberAndFeature(JsonProcessor kind)
    {
        DocumentInspector inspector = DocumentInspector.For(kind);
        var request = new InspectionRequest(64);

        DocumentInspection withTokens = inspector.Inspect(Write(kind, Policy(1, 1), Ada), request);
        DocumentInspection without = inspector.Inspect(Write(kind, Policy(0, 0), Ada), request);
        DocumentInspection application = inspector.Inspect("""{"id":"1","_q":{"/age":[]}}""".Utf8(), request);

        Assert.Equal((true, true), (withTokens.HasQueryTokenFeature, withTokens.HasQueryTokenMember));
        Assert.Equal(["/name", "/age"], withTokens.QueryTokenMembers!);
        Assert.Equal((false, false), (without.HasQueryTokenFeature, without.HasQueryTokenMember));
        Assert.Equal((false, true), (application.HasQueryTokenFeature, application.HasQueryTokenMember));
        Assert.Null(without.QueryTokenMembers);
        Assert.Null(application.QueryTokenMembers);
    }

    private static string Replace(JObject document, Action<JObject> change)
    {
        JObject copy = (JObject)document.DeepClone();
        change(copy);
        return copy.ToString(Newtonsoft.Json.Formatting.None);
    }
}

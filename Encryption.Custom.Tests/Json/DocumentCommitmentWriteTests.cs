using Encryption.Custom.Crypto.Binding;
using Encryption.Custom.Json;
using Encryption.Custom.Json.JTokens;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Json;

/// <summary>
/// Writing the document commitment (docs/wire-format.md "Document commitment"): a committing binding writes
/// <c>commit</c> in crit and, in the anchor, the commitment over D, the listed paths and the chain of the cells in
/// document order. Both processors' anchors are recomputed here from the written cells with the primitive, so the
/// two write the same commitment for the same cells.
/// </summary>
public sealed class DocumentCommitmentWriteTests : IDisposable
{
    private const string Dek = "dek1";
    private const string Alice = """{"id":"alice","pk":"tenant-1","ssn":"SECRET-111","limit":5000,"email":"alice@example.com","address":{"city":"SECRET-Paris","zip":"75001"},"cards":[{"number":"SECRET-4111"},{"number":null},{"number":"SECRET-4222"}]}""";

    private readonly DataEncryptionKey _key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);

    public void Dispose() => _key.Dispose();

    private static BindingTarget Target(bool commit) => new("db/orders", ["/pk"]) { Commit = commit };

    private static PolicyRuleSet Rules(bool commit, params string[] paths) =>
        new ContainerEncryptionPolicy(Dek, (paths.Length == 0 ? ["/ssn", "/limit", "/address/city", "/cards/[]/number"] : paths).Select(p => new EncryptionPolicyIncludedPath(p)).Append(new EncryptionPolicyIncludedPath("/email") { EncryptionType = PathEncryptionType.Deterministic }))
        {
            Bind = true,
            Commit = commit,
        }.Rules.BindTo(Target(commit));

    private JObject Encrypt(JsonProcessor kind, PolicyRuleSet rules, string document = Alice) =>
        JObject.Parse(EncryptionProcessor.Create(kind).Encrypt(document, _key, rules.CreateWriteOptions()).Utf8());

    // Independent of both processors' walks: the cells of Alice's shape, in the order the document holds them.
    private byte[] Expected(JObject stored, IEnumerable<JToken> cells)
    {
        var chain = default(CommitmentChain);
        foreach (JToken cell in cells)
        {
            byte[] blob = Convert.FromBase64String((string)cell!);
            chain.Append(blob[0], blob.AsSpan(1));
        }

        var plain = (JObject)stored.DeepClone();
        CellBinding binding = JBinding.Compute(plain, Target(commit: true), (string)stored["_ei"]!["_ea"]!, Dek);
        byte[] block = DocumentCommitment.CreateSelectorBlock(stored["_ei"]!["_ep"]!.Select(p => (string)p!).Where(p => p != "/_ex"));
        byte[] anchor = new byte[ExtendedEnvelope.AnchorLength];
        anchor[0] = ExtendedEnvelope.AnchorTag;
        anchor[1] = ExtendedEnvelope.AnchorVersion;
        using (DataEncryptionKeyLease lease = DataEncryptionKeyLease.Acquire(_key))
        {
            _key.ComputeCommitmentLeased(binding.DocumentDigest, block, chain, anchor.AsSpan(2));
        }

        return anchor;
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void CommittingBinding_WritesCommitInCrit_AndTheCommitmentOfItsCells(JsonProcessor kind)
    {
        JObject stored = Encrypt(kind, Rules(commit: true));

        Assert.Equal("""{"v":1,"crit":["sel","bind","commit"]}""", stored["_ei"]!["_ev"]!.ToString(Newtonsoft.Json.Formatting.None));
        JToken[] cells = [stored["ssn"]!, stored["limit"]!, stored["email"]!, stored["address"]!["city"]!, stored["cards"]![0]!["number"]!, stored["cards"]![2]!["number"]!];
        Assert.Equal(JTokenType.Null, stored["cards"]![1]!["number"]!.Type);
        Assert.Equal(Convert.ToBase64String(Expected(stored, cells)), (string)stored["_ex"]!);
        Assert.NotEqual(ExtendedEnvelope.AnchorBase64, (string)stored["_ex"]!);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void CommittingTopLevelBinding_WritesBindAndCommit(JsonProcessor kind)
    {
        JObject stored = Encrypt(kind, Rules(true, "/ssn", "/limit"));

        Assert.Equal("""{"v":1,"crit":["bind","commit"]}""", stored["_ei"]!["_ev"]!.ToString(Newtonsoft.Json.Formatting.None));
        Assert.Equal(Convert.ToBase64String(Expected(stored, [stored["ssn"]!, stored["limit"]!, stored["email"]!])), (string)stored["_ex"]!);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void BindingWithoutCommit_KeepsTheZeroAnchor(JsonProcessor kind)
    {
        JObject stored = Encrypt(kind, Rules(commit: false));

        Assert.Equal("""{"v":1,"crit":["sel","bind"]}""", stored["_ei"]!["_ev"]!.ToString(Newtonsoft.Json.Formatting.None));
        Assert.Equal(ExtendedEnvelope.AnchorBase64, (string)stored["_ex"]!);
    }

    [Fact]
    public void BothProcessors_ComputeTheSameCommitment_ForTheSameCells()
    {
        // The stream processor chains cells as it writes them; the Newtonsoft walk recomputes from the stored cells.
        JObject stored = Encrypt(JsonProcessor.Stream, Rules(commit: true));
        EncryptionPlan plan = Rules(commit: true).Plan;
        string[] listed = [.. stored["_ei"]!["_ep"]!.Select(p => (string)p!).Where(p => p != "/_ex")];
        CommitmentChain chain = JCommitment.Chain(stored, name => listed.Contains("/" + name), plan.NestedSelectors);
        CellBinding binding = JBinding.Compute(stored, Target(commit: true), plan.EncryptionAlgorithm, Dek);
        string anchor;
        using (DataEncryptionKeyLease lease = DataEncryptionKeyLease.Acquire(_key))
        {
            anchor = JCommitment.Anchor(_key, binding, listed, chain);
        }

        Assert.Equal((string)stored["_ex"]!, anchor);
    }
}

/// <summary>
/// Reading the document commitment, both processors, either writer: a committed document round-trips, and a removed cell, a cell put back from an older version of the same
/// document, a dropped listed path or a tampered anchor is refused with CellBindingMismatch; crit with commit but
/// without bind is refused.
/// </summary>
public sealed class DocumentCommitmentReadTests : IDisposable
{
    private const string Dek = "dek1";
    private const string Alice = """{"id":"alice","pk":"tenant-1","ssn":"SECRET-111","limit":5000,"email":"alice@example.com","address":{"city":"SECRET-Paris","zip":"75001"},"cards":[{"number":"SECRET-4111"},{"number":"SECRET-4222"}]}""";

    private readonly DataEncryptionKey _key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
    private readonly TestEncryptor _encryptor = new();

    public DocumentCommitmentReadTests() => _encryptor.Add(Dek, _key);

    public void Dispose() => _key.Dispose();

    private static PolicyRuleSet Rules(bool commit = true) =>
        new ContainerEncryptionPolicy(Dek, new[] { "/ssn", "/limit", "/address/city", "/cards/[]/number" }.Select(p => new EncryptionPolicyIncludedPath(p)).Append(new EncryptionPolicyIncludedPath("/email") { EncryptionType = PathEncryptionType.Deterministic }))
        {
            Bind = true,
            Commit = commit,
        }.Rules.BindTo(new BindingTarget("db/orders", ["/pk"]) { Commit = commit });

    private byte[] Encrypt(JsonProcessor kind, string document = Alice) =>
        EncryptionProcessor.Create(kind).Encrypt(document, _key, Rules().CreateWriteOptions());

    private byte[] Decrypt(JsonProcessor kind, string document) =>
        EncryptionProcessor.Create(kind, rules: Rules()).Decrypt(System.Text.Encoding.UTF8.GetBytes(document), _encryptor);

    [Theory]
    [MemberData(nameof(Processors.Pairs), MemberType = typeof(Processors))]
    public void CommittedDocument_RoundTrips(JsonProcessor writer, JsonProcessor reader)
    {
        JsonAssert.Equivalent(Alice, Decrypt(reader, Encrypt(writer).Utf8()).Utf8());
    }

    public static TheoryData<JsonProcessor, JsonProcessor, string> Tamperings()
    {
        var data = new TheoryData<JsonProcessor, JsonProcessor, string>();
        foreach (JsonProcessor writer in Enum.GetValues<JsonProcessor>())
        {
            foreach (JsonProcessor reader in Enum.GetValues<JsonProcessor>())
            {
                foreach (string tampering in new[] { "cell-removed", "cell-set-to-null", "card-removed", "cell-from-older-version", "cards-swapped", "listed-path-dropped", "anchor-changed" })
                {
                    data.Add(writer, reader, tampering);
                }
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Tamperings))]
    public void TamperedCommittedDocument_IsRefusedAsCellBindingMismatch(JsonProcessor writer, JsonProcessor reader, string tampering)
    {
        JObject stored = JObject.Parse(Encrypt(writer).Utf8());
        JObject older = JObject.Parse(Encrypt(writer, Alice.Replace("SECRET-111", "SECRET-000", StringComparison.Ordinal)).Utf8());
        switch (tampering)
        {
            case "cell-removed": stored.Remove("limit"); break;
            case "cell-set-to-null": stored["address"]!["city"] = null; break;
            case "card-removed": ((JArray)stored["cards"]!).RemoveAt(1); break;
            case "cell-from-older-version": stored["ssn"] = older["ssn"]!.DeepClone(); break;
            case "cards-swapped":
                JToken first = stored["cards"]![0]!.DeepClone();
                stored["cards"]![0] = stored["cards"]![1]!.DeepClone();
                stored["cards"]![1] = first;
                break;
            case "listed-path-dropped":
                stored.Remove("limit");
                ((JArray)stored["_ei"]!["_ep"]!).Remove(((JArray)stored["_ei"]!["_ep"]!).First(p => (string)p! == "/limit"));
                break;
            case "anchor-changed":
                byte[] anchor = Convert.FromBase64String((string)stored["_ex"]!);
                anchor[^1] ^= 1;
                stored["_ex"] = Convert.ToBase64String(anchor);
                break;
        }

        EncryptionException error = Assert.Throws<EncryptionException>(() => Decrypt(reader, stored.ToString(Newtonsoft.Json.Formatting.None)));
        Assert.Equal(EncryptionErrorKind.CellBindingMismatch, error.Kind);
        Assert.Contains("document commitment", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void EscapedCells_AreChainedAsTheirUnescapedBase64(JsonProcessor reader)
    {
        // Another writer may escape '/' in base64; the commitment covers the cell, not its JSON spelling.
        string escaped = Encrypt(JsonProcessor.Stream).Utf8().Replace("/", "\\/", StringComparison.Ordinal);
        JsonAssert.Equivalent(Alice, Decrypt(reader, escaped).Utf8());
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void CommitWithoutBind_InCrit_IsRefused(JsonProcessor reader)
    {
        JObject stored = JObject.Parse(Encrypt(JsonProcessor.Newtonsoft).Utf8());
        stored["_ei"]!["_ev"]!["crit"] = new JArray("sel", "commit");

        EncryptionException error = Assert.Throws<EncryptionException>(() => Decrypt(reader, stored.ToString(Newtonsoft.Json.Formatting.None)));
        Assert.Equal(EncryptionErrorKind.UnsupportedFormat, error.Kind);
        Assert.Contains("without 'bind'", error.Message, StringComparison.Ordinal);
    }
}

/// <summary>The public option: <c>ContainerEncryptionPolicy.Commit</c> needs binding, commits through the container's binding, and a committing strict reader refuses documents written without it.</summary>
public sealed class DocumentCommitmentPolicyTests : IDisposable
{
    private const string Dek = "dek1";
    private const string Alice = """{"id":"alice","pk":"tenant-1","ssn":"SECRET-111","limit":5000}""";

    private readonly DataEncryptionKey _key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
    private readonly TestEncryptor _encryptor = new();

    public DocumentCommitmentPolicyTests() => _encryptor.Add(Dek, _key);

    public void Dispose() => _key.Dispose();

    private static ContainerEncryptionPolicy Policy(bool? bind, bool commit, PlaintextPolicy mode = PlaintextPolicy.WriteEncryptedForbidPlaintext) =>
        new(Dek, ["/ssn", "/limit"]) { Bind = bind, Commit = commit, PlaintextPolicy = mode };

    private static BindingTarget Container => new("db/orders", ["/pk"]);

    [Theory]
    [InlineData(false)]
    [InlineData(null)]
    public void Commit_WithoutBinding_IsRefused(bool? bind)
    {
        EncryptionException error = Assert.Throws<EncryptionException>(() => Policy(bind, commit: true).Rules);
        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Contains("Bind", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void CommittingPolicy_BoundToItsContainer_WritesAndVerifiesTheCommitment(JsonProcessor kind)
    {
        PolicyRuleSet rules = Policy(bind: true, commit: true).Rules.BindTo(Container);
        byte[] encrypted = EncryptionProcessor.Create(kind).Encrypt(Alice, _key, rules.CreateWriteOptions());

        Assert.Equal("""{"v":1,"crit":["bind","commit"]}""", JObject.Parse(encrypted.Utf8())["_ei"]!["_ev"]!.ToString(Newtonsoft.Json.Formatting.None));
        JsonAssert.Equivalent(Alice, EncryptionProcessor.Create(kind, rules: rules).Decrypt(encrypted, _encryptor).Utf8());
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void UncommittedDocument_UnderACommittingPolicy_IsADowngrade_RefusedOnlyWhenPlaintextIsForbidden(JsonProcessor kind)
    {
        byte[] uncommitted = EncryptionProcessor.Create(kind).Encrypt(Alice, _key, Policy(bind: true, commit: false).Rules.BindTo(Container).CreateWriteOptions());

        EncryptionException error = Assert.Throws<EncryptionException>(() => EncryptionProcessor.Create(kind, rules: Policy(true, true).Rules.BindTo(Container)).Decrypt(uncommitted, _encryptor));
        Assert.Equal(EncryptionErrorKind.UnsupportedFormat, error.Kind);
        Assert.Contains("'commit' missing", error.Message, StringComparison.Ordinal);

        PolicyRuleSet migrating = Policy(true, true, PlaintextPolicy.WriteEncryptedReadBoth).Rules.BindTo(Container);
        JsonAssert.Equivalent(Alice, EncryptionProcessor.Create(kind, rules: migrating).Decrypt(uncommitted, _encryptor).Utf8());
    }
}

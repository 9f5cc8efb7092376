using Encryption.Custom.Cosmos.Patch;
using Encryption.Custom.Cosmos.Serialization;
using Encryption.Custom.Json;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Cosmos.Patch;

/// <summary>
/// <see cref="PatchRewriter"/> on documents written by the processors under a format 101 policy, bound and
/// unbound: the rewritten operations, applied as the service applies them (<see cref="PatchApplier"/> standing in for
/// it) to the stored document, give a document that both processors decrypt to the caller's operations applied to the
/// plaintext, with no plaintext stored at a selected position; what a patch cannot carry is sent to the replace.
/// </summary>
public sealed class PatchRewriterSelectorTests : IDisposable
{
    private const string Dek = "dek1";
    private const string Alice = """{"id":"alice","pk":"tenant-1","name":"Alice","ssn":"SECRET-111","address":{"street":"1 Main St","city":"SECRET-Paris"},"cards":[{"number":"SECRET-4111","expiry":"12/30"},{"number":"SECRET-4222","expiry":"01/31"}]}""";
    private static readonly CosmosSerializer s_serializer = new NewtonsoftItemSerializer(null);

    private readonly DataEncryptionKey _key = TestKeys.Create(TestKeyKind.Protected);
    private readonly TestEncryptor _encryptor;

    public PatchRewriterSelectorTests()
    {
        _encryptor = new TestEncryptor().Add(Dek, _key);
    }

    public void Dispose() => _key.Dispose();

    private static PolicyRuleSet Rules(bool bind)
    {
        // "dek2" is accepted (a rotation from it): its documents are read, and patched by a replace under the policy's key.
        PolicyRuleSet rules = new ContainerEncryptionPolicy(Dek, ["/ssn", "/address/city", "/cards/[]/number"]) { Bind = bind, AcceptedDataEncryptionKeyIds = ["dek2"] }.Rules;
        return bind ? rules.BindTo(new BindingTarget("db/c", ["/pk"])) : rules;
    }

    public static TheoryData<bool, JsonProcessor, string> Patches()
    {
        var data = new TheoryData<bool, JsonProcessor, string>();
        string[] patches =
        [
            "set /address/city",
            "set /address",
            "add /cards/-",
            "set /cards/1",
            "add /cards/0",
            "set /cards/0/number",
            "replace /cards/1/number",
            "set /ssn",
            "set /address/city null",
            "remove /cards/0",
            "remove /address",
            "set /name",
            "set /cards/0/expiry",
        ];
        foreach (bool bind in new[] { false, true })
        {
            foreach (JsonProcessor processor in Enum.GetValues<JsonProcessor>())
            {
                foreach (string patch in patches)
                {
                    data.Add(bind, processor, patch);
                }
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Patches))]
    public async Task RewrittenPatch_AppliedToTheStoredDocument_DecryptsToThePatchedPlaintext(bool bind, JsonProcessor processor, string patch)
    {
        PolicyRuleSet rules = Rules(bind);
        PatchOperation operation = Operation(patch);
        byte[] stored = EncryptionProcessor.Create(processor).Encrypt(Alice, _key, rules.CreateWriteOptions());

        PatchRewrite result = await RewriteAsync(rules, [operation], stored);

        Assert.Null(result.ReplaceReason);
        JObject patched = JObject.Parse(stored.Utf8());
        Assert.Null(PatchApplier.TryApply(patched, result.Operations!, s_serializer, 64));
        string raw = patched.ToString(Newtonsoft.Json.Formatting.None);
        Assert.DoesNotContain("SECRET", raw, StringComparison.Ordinal);
        JObject expected = JObject.Parse(Alice);
        Assert.Null(PatchApplier.TryApply(expected, [Operation(patch)], s_serializer, 64));
        foreach (JsonProcessor reader in Enum.GetValues<JsonProcessor>())
        {
            JsonAssert.Equivalent(expected.ToString(Newtonsoft.Json.Formatting.None), EncryptionProcessor.Create(reader, rules: rules).Decrypt(System.Text.Encoding.UTF8.GetBytes(raw), _encryptor).Utf8());
        }
    }

    [Fact]
    public async Task ASelectorWithNoValueYet_IsAddedToTheMetadata_InThePlansOrder()
    {
        PolicyRuleSet rules = Rules(bind: true);
        byte[] stored = EncryptionProcessor.Create(JsonProcessor.Stream).Encrypt("""{"id":"a","pk":"p","ssn":"SECRET-1"}""", _key, rules.CreateWriteOptions());

        PatchRewrite result = await RewriteAsync(rules, [PatchOperation.Add("/cards", new[] { new { number = "SECRET-4111" } })], stored);

        PatchOperation metadata = result.Operations![^1];
        Assert.Equal("/_ei/_ep", metadata.Path);
        JObject patched = JObject.Parse(stored.Utf8());
        Assert.Null(PatchApplier.TryApply(patched, result.Operations!, s_serializer, 64));
        Assert.Equal(["/_ex", "/ssn", "/cards/[]/number"], patched["_ei"]!["_ep"]!.Select(p => (string)p!));
        Assert.DoesNotContain("SECRET", patched.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task ABoundCellWrittenByPatch_IsBoundToTheSelector_NotTheIndex()
    {
        PolicyRuleSet rules = Rules(bind: true);
        byte[] stored = EncryptionProcessor.Create(JsonProcessor.Stream).Encrypt(Alice, _key, rules.CreateWriteOptions());
        PatchRewrite result = await RewriteAsync(rules, [PatchOperation.Set("/cards/1/number", "SECRET-4999")], stored);
        JObject patched = JObject.Parse(stored.Utf8());
        Assert.Null(PatchApplier.TryApply(patched, result.Operations!, s_serializer, 64));

        // Reordering the elements keeps every cell valid: the tag covers /cards/[]/number, not /cards/1/number.
        var cards = (JArray)patched["cards"]!;
        JToken second = cards[1];
        second.Remove();
        cards.AddFirst(second);
        JObject read = JObject.Parse(EncryptionProcessor.Create(JsonProcessor.Newtonsoft, rules: rules).Decrypt(System.Text.Encoding.UTF8.GetBytes(patched.ToString()), _encryptor).Utf8());
        Assert.Equal("SECRET-4999", (string?)read["cards"]![0]!["number"]);

        // Moved to another selector it fails: the cell is bound to its selector.
        patched["ssn"] = cards[0]["number"]!.DeepClone();
        EncryptionException error = Assert.Throws<EncryptionException>(() => EncryptionProcessor.Create(JsonProcessor.Newtonsoft, rules: rules).Decrypt(System.Text.Encoding.UTF8.GetBytes(patched.ToString()), _encryptor));
        Assert.Equal(EncryptionErrorKind.CellBindingMismatch, error.Kind);
    }

    [Fact]
    public async Task MoreOperationsThanTheServiceAccepts_GoToTheReplace()
    {
        PolicyRuleSet rules = Rules(bind: true);
        PatchOperation[] operations = [.. Enumerable.Range(0, 9).Select(i => PatchOperation.Set($"/extra{i}", i)), PatchOperation.Add("/cards", new[] { new { number = "SECRET-4111" } })];

        // Ten operations, /cards/[]/number already listed: ten are sent.
        byte[] listed = EncryptionProcessor.Create(JsonProcessor.Stream).Encrypt(Alice, _key, rules.CreateWriteOptions());
        PatchRewrite result = await RewriteAsync(rules, operations, listed);
        Assert.Null(result.ReplaceReason);
        Assert.Equal(10, result.Operations!.Count);

        // The same ten where the selector is not listed yet: the metadata is an eleventh.
        byte[] unlisted = EncryptionProcessor.Create(JsonProcessor.Stream).Encrypt("""{"id":"a","pk":"p","ssn":"SECRET-1"}""", _key, rules.CreateWriteOptions());
        result = await RewriteAsync(rules, operations, unlisted);
        Assert.Null(result.Operations);
        Assert.Contains("11 operations", result.ReplaceReason, StringComparison.Ordinal);
    }

    public static TheoryData<string> ReplaceCases => ["move selected", "move into ancestor", "not encrypted", "format 3", "other key"];

    [Theory]
    [MemberData(nameof(ReplaceCases))]
    public async Task WhatAPatchCannotCarry_GoesToTheReplace_WithAReason(string replaceCase)
    {
        PolicyRuleSet rules = Rules(bind: false);
        byte[] stored = EncryptionProcessor.Create(JsonProcessor.Stream).Encrypt(Alice, _key, rules.CreateWriteOptions());
        PatchOperation operation = PatchOperation.Set("/address/city", "SECRET-Lyon");
        switch (replaceCase)
        {
            case "move selected":
                operation = PatchOperation.Move("/address/city", "/town");
                break;
            case "move into ancestor":
                operation = PatchOperation.Move("/town", "/address");
                break;
            case "not encrypted":
                stored = System.Text.Encoding.UTF8.GetBytes(Alice);
                break;
            case "format 3":
                stored = EncryptionProcessor.Create(JsonProcessor.Stream).Encrypt(Alice, _key, new EncryptionOptions { DataEncryptionKeyId = Dek, EncryptionAlgorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, PathsToEncrypt = ["/ssn"] });
                break;
            default:
                using (DataEncryptionKey other = TestKeys.Create(TestKeyKind.Protected))
                {
                    _encryptor.Add("dek2", other);
                    stored = EncryptionProcessor.Create(JsonProcessor.Stream).Encrypt(Alice, other, new EncryptionOptions { DataEncryptionKeyId = "dek2", EncryptionAlgorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, PathsToEncrypt = ["/ssn", "/address/city", "/cards/[]/number"] });
                }

                break;
        }

        PatchRewrite result = await RewriteAsync(rules, [operation], stored);

        Assert.Null(result.Operations);
        Assert.False(string.IsNullOrWhiteSpace(result.ReplaceReason));
        Assert.DoesNotContain("SECRET", result.ReplaceReason, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("set /address/zip", true)]
    [InlineData("set /address", true)]
    [InlineData("remove /address", true)]
    [InlineData("remove /address/zip", true)]
    [InlineData("move /address/zip /zip", true)]
    [InlineData("set /address/city", false)]
    [InlineData("set /name", false)]
    public async Task APatchChangingANestedTokenPath_OrAnAncestorOfOne_GoesToTheReplace(string patch, bool replaced)
    {
        PolicyRuleSet rules = new ContainerEncryptionPolicy(Dek,
        [
            new EncryptionPolicyIncludedPath("/address/city"),
            new EncryptionPolicyIncludedPath("/address/zip") { Queries = new IntegerRangeQueryOptions(0, 99999) },
        ]) { Bind = false }.Rules;
        byte[] stored = EncryptionProcessor.Create(JsonProcessor.Stream).Encrypt("""{"id":"a","pk":"p","name":"A","address":{"city":"SECRET-Paris","zip":75001}}""", _key, rules.CreateWriteOptions());
        string[] parts = patch.Split(' ');
        PatchOperation operation = parts[0] switch
        {
            "set" => PatchOperation.Set<object>(parts[1], parts[1] == "/address" ? new { city = "SECRET-Lyon", zip = 69001 } : parts[1] == "/address/zip" ? 69001 : "SECRET-Lyon"),
            "remove" => PatchOperation.Remove(parts[1]),
            _ => PatchOperation.Move(parts[1], parts[2]),
        };

        PatchRewrite result = await RewriteAsync(rules, [operation], stored);

        Assert.Equal(replaced, result.ReplaceReason is not null);
        if (replaced && parts[0] != "move")
        {
            // (A move of an encrypted value is replaced for its own reason first: its cells are bound to their selector.)
            Assert.Contains("query tokens", result.ReplaceReason, StringComparison.Ordinal);
        }
    }

    private Task<PatchRewrite> RewriteAsync(PolicyRuleSet rules, PatchOperation[] operations, byte[] stored) =>
        PatchRewriting.RewriteAsync(operations, rules.CreateWriteOptions(), new PatchCrypto(rules, new StreamProcessor(), _encryptor, s_serializer), EnvelopeReader.ReadMetadata(stored, 64), stored);

    private static PatchOperation Operation(string patch)
    {
        string[] parts = patch.Split(' ');
        string path = parts[1];
        object value = parts.Length > 2 ? JValue.CreateNull() : path switch
        {
            "/address" => new { street = "2 Side St", city = "SECRET-Lyon" },
            "/cards/-" or "/cards/1" or "/cards/0" => new { number = "SECRET-4333", expiry = "02/32" },
            "/ssn" => "SECRET-999",
            "/name" or "/cards/0/expiry" => "plain",
            _ => "SECRET-4999",
        };
        return parts[0] switch
        {
            "add" => PatchOperation.Add(path, value),
            "replace" => PatchOperation.Replace(path, value),
            "remove" => PatchOperation.Remove(path),
            _ => PatchOperation.Set(path, value),
        };
    }
}

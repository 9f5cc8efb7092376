using System.Text;
using Encryption.Custom.Cosmos.Patch;
using Encryption.Custom.Cosmos.Serialization;
using Encryption.Custom.Json;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using FsCheck;
using FsCheck.Fluent;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Cosmos.Patch;

/// <summary>
/// The one patch strategy over generated patches, for a format 3 policy, a format 101 one and a bound one, on documents
/// written by either processor (or not yet encrypted, or under the previous, accepted key): each patch is refused,
/// answered with the replace, or rewritten; a rewritten patch, applied as the service applies it
/// (<see cref="PatchApplier"/> standing in for it) to the stored document, leaves every policy value a cell and
/// decrypts, strictly and with both processors, to the caller's operations applied to the plaintext; and when the
/// plaintext patch fails, the rewritten one fails too.
/// </summary>
public sealed class PatchStrategyPropertyTests : IDisposable
{
    private const string Dek = "dek1";
    private const string PreviousDek = "dek0";
    private const string Alice = """{"id":"alice","pk":"tenant-1","name":"Alice","count":1,"ssn":"S-111","card":"C-4111","address":{"street":"1 Main St","city":"Paris"},"cards":[{"number":"N-4111","expiry":"12/30"},{"number":"N-4222","expiry":"01/31"}]}""";
    // Not yet encrypted: the policy's values absent (a plaintext one would be the document's, not the patch's).
    private const string Unencrypted = """{"id":"alice","pk":"tenant-1","name":"Alice","count":1,"address":{"street":"1 Main St"},"cards":[{"expiry":"12/30"},{"expiry":"01/31"}]}""";
    private static readonly CosmosSerializer s_serializer = new NewtonsoftItemSerializer(null);
    private static readonly string[] s_paths = ["/ssn", "/card", "/name", "/count", "/address", "/address/city", "/address/street", "/cards", "/cards/0", "/cards/1/number", "/cards/-", "/cards/0/expiry", "/SSN", "/missing"];

    private readonly DataEncryptionKey _key = TestKeys.Create(TestKeyKind.Protected);
    private readonly DataEncryptionKey _previous = TestKeys.Create(TestKeyKind.Protected);
    private readonly TestEncryptor _encryptor;

    // How the generated cases ended: refused, replaced, rewritten and applied, rewritten and refused like the plaintext.
    private readonly int[] _outcomes = new int[4];

    public PatchStrategyPropertyTests()
    {
        _encryptor = new TestEncryptor().Add(Dek, _key).Add(PreviousDek, _previous);
    }

    public void Dispose()
    {
        _key.Dispose();
        _previous.Dispose();
    }

    public enum PolicyKind
    {
        TopLevel,
        Nested,
        Bound,
    }

    public enum StoredKind
    {
        AsPolicy,
        NotEncrypted,
        PreviousKey,
    }

    private static PolicyRuleSet Rules(PolicyKind kind)
    {
        string[] paths = kind == PolicyKind.TopLevel ? ["/ssn", "/card"] : ["/ssn", "/card", "/address/city", "/cards/[]/number"];
        PolicyRuleSet rules = new ContainerEncryptionPolicy(Dek, [new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic }, .. paths.Skip(1).Select(p => new EncryptionPolicyIncludedPath(p))])
        {
            Bind = kind == PolicyKind.Bound,
            AcceptedDataEncryptionKeyIds = [PreviousDek],
        }.Rules;
        return kind == PolicyKind.Bound ? rules.BindTo(new BindingTarget("db/c", ["/pk"])) : rules;
    }

    private static Gen<PatchOperation> Operation() =>
        from kind in Gen.Choose(0, 5)
        from path in Gen.Elements(s_paths)
        from source in Gen.Elements(s_paths)
        from value in Gen.Elements<object?>("V-1", 7, null, new { city = "Lyon", street = "2 Side St" }, new { number = "N-9", expiry = "02/32" })
        select kind switch
        {
            0 => PatchOperation.Set(path, value),
            1 => PatchOperation.Add(path, value),
            2 => PatchOperation.Replace(path, value),
            3 => PatchOperation.Remove(path),
            4 => PatchOperation.Move(source, path),
            _ => PatchOperation.Increment(path, 1),
        };

    [Fact]
    public void GeneratedPatches_AreRefusedReplacedOrRewrittenToThePatchedPlaintext()
    {
        Gen<(PolicyKind Policy, StoredKind Stored, JsonProcessor Writer, PatchOperation[] Operations)> cases =
            from policy in Gen.Elements(Enum.GetValues<PolicyKind>())
            from stored in Gen.Elements(Enum.GetValues<StoredKind>())
            from writer in Gen.Elements(Enum.GetValues<JsonProcessor>())
            from count in Gen.Choose(1, 3)
            from operations in Operation().ArrayOf(count)
            select (policy, stored, writer, operations);

        Prop.ForAll(cases.ToArbitrary(), c => Check(c.Policy, c.Stored, c.Writer, c.Operations))
            .Check(Config.QuickThrowOnFailure.WithMaxTest(500));

        // The generator reaches every outcome, most often the one that checks the most.
        TestContext.Current.SendDiagnosticMessage($"refused {_outcomes[0]}, replaced {_outcomes[1]}, rewritten {_outcomes[2]}, failing both ways {_outcomes[3]}");
        Assert.All(_outcomes, count => Assert.True(count >= 10, string.Join(", ", _outcomes)));
        Assert.True(_outcomes[2] >= 100, string.Join(", ", _outcomes));
    }

    private void Check(PolicyKind policy, StoredKind storedKind, JsonProcessor writer, PatchOperation[] operations)
    {
        PolicyRuleSet rules = Rules(policy);
        EncryptionOptions options = rules.CreateWriteOptions();
        byte[] stored = storedKind switch
        {
            StoredKind.NotEncrypted => Encoding.UTF8.GetBytes(Unencrypted),
            StoredKind.PreviousKey => EncryptionProcessor.Create(writer).Encrypt(Alice, _previous, WithKey(options, PreviousDek)),
            _ => EncryptionProcessor.Create(writer).Encrypt(Alice, _key, options),
        };

        PatchRewrite rewrite;
        try
        {
            rewrite = PatchRewriting.RewriteAsync(operations, options, new PatchCrypto(rules, new StreamProcessor(), _encryptor, s_serializer), EnvelopeReader.ReadMetadata(stored, 64), stored).GetAwaiter().GetResult();
        }
        catch (EncryptionException refused)
        {
            Assert.Equal(EncryptionErrorKind.InvalidOptions, refused.Kind);
            _outcomes[0]++;
            return;
        }

        if (rewrite.ReplaceReason is not null)
        {
            // The replace decrypts, applies in process and writes through the container's write path.
            Assert.Null(rewrite.Operations);
            _outcomes[1]++;
            return;
        }

        JObject expected = JObject.Parse(storedKind == StoredKind.NotEncrypted ? Unencrypted : Alice);
        string? expectedError = PatchApplier.TryApply(expected, operations, s_serializer, 64);
        JObject patched = JObject.Parse(Encoding.UTF8.GetString(stored));
        string? error = PatchApplier.TryApply(patched, rewrite.Operations!, s_serializer, 64);
        if (expectedError is not null)
        {
            Assert.NotNull(error);
            _outcomes[3]++;
            return;
        }

        Assert.Null(error);
        AssertEveryPolicyValueIsACell(patched, rules);
        byte[] raw = Encoding.UTF8.GetBytes(patched.ToString(Newtonsoft.Json.Formatting.None));
        foreach (JsonProcessor reader in Enum.GetValues<JsonProcessor>())
        {
            JsonAssert.Equivalent(expected.ToString(Newtonsoft.Json.Formatting.None), EncryptionProcessor.Create(reader, rules: rules).Decrypt(raw, _encryptor).Utf8());
        }

        _outcomes[2]++;
    }

    private static EncryptionOptions WithKey(EncryptionOptions options, string keyId) => new()
    {
        DataEncryptionKeyId = keyId,
        EncryptionAlgorithm = options.EncryptionAlgorithm,
        PathsToEncrypt = options.PathsToEncrypt,
        DeterministicPaths = options.DeterministicPaths,
        Binding = options.Binding,
    };

    // Every value a policy selector reaches in the stored document is a cell (or null): no plaintext was stored.
    private static void AssertEveryPolicyValueIsACell(JObject document, PolicyRuleSet rules)
    {
        EncryptionPlan plan = rules.Plan;
        for (int i = 0; i < plan.PathCount; i++)
        {
            foreach (JToken value in Reach(document, plan.GetRulePath(i).Segments, 0))
            {
                Assert.True(value.Type == JTokenType.Null || (value.Type == JTokenType.String && EncryptedCell.IsCellShaped(Encoding.UTF8.GetBytes((string)value!))), $"plaintext at {plan.GetPath(i)}: {value.Type}");
            }
        }
    }

    private static IEnumerable<JToken> Reach(JToken token, IReadOnlyList<string> segments, int index)
    {
        if (index == segments.Count)
        {
            return [token];
        }

        return segments[index] == RulePath.ArrayWildcard
            ? token is JArray array ? array.SelectMany(e => Reach(e, segments, index + 1)) : []
            : token is JObject obj && obj[segments[index]] is { } child ? Reach(child, segments, index + 1) : [];
    }
}

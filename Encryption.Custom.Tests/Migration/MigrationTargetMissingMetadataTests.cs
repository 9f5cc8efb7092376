using Encryption.Custom.Json.Inspection;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Encryption.Custom.Migration;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Migration;

/// <summary>
/// A format 101 document whose <c>_ei</c> was removed (by a writer without encryption, say) but that still carries the
/// anchor <c>_ex</c>: the in-place job reports it as missing its envelope metadata, the wording a read uses, not as
/// tampered or under another key (a bound cell's MAC covers what the lost metadata described, so no key authenticates
/// it). The status scan counts it outside the target state, with unlisted ciphertext. A format 3 document that lost
/// <c>_ei</c> has no anchor and keeps the unlisted-ciphertext wording.
/// </summary>
public sealed class MigrationTargetMissingMetadataTests : IDisposable
{
    private const string Document = """{"id":"1","pk":"a","ssn":"123","card":"4111","address":{"city":"Oslo","zip":"0150"}}""";
    private const string Missing = "the envelope metadata is missing";

    private readonly DataEncryptionKey _key = TestKeys.Create(TestKeyKind.Protected);
    private readonly TestEncryptor _encryptor;

    public MigrationTargetMissingMetadataTests()
    {
        _encryptor = new TestEncryptor().Add("dek1", _key);
    }

    public static TheoryData<JsonProcessor, bool, bool> Cases()
    {
        var data = new TheoryData<JsonProcessor, bool, bool>();
        foreach (JsonProcessor kind in Enum.GetValues<JsonProcessor>())
        {
            foreach (bool bind in new[] { false, true })
            {
                data.Add(kind, bind, true);
                data.Add(kind, bind, false);
            }
        }

        return data;
    }

    public void Dispose() => _key.Dispose();

    private static ContainerEncryptionPolicy Policy(bool nested, bool bind) =>
        new("dek1", [new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic }, new EncryptionPolicyIncludedPath("/card"), new EncryptionPolicyIncludedPath(nested ? "/address/city" : "/address")]) { Bind = bind };

    private static byte[] WithoutEnvelope(byte[] written)
    {
        var document = JObject.Parse(System.Text.Encoding.UTF8.GetString(written));
        Assert.True(document.Remove("_ei"));
        return System.Text.Encoding.UTF8.GetBytes(document.ToString(Formatting.None));
    }

    private (DocumentState State, EncryptionException Report) Judge(ContainerEncryptionPolicy policy, byte[] stored, JsonProcessor kind, bool withKey)
    {
        var target = new MigrationTarget(policy, [], withKey ? _encryptor : null, kind);
        if (policy.Binds)
        {
            target.Bind("db/c", ["/pk"]);
        }

        using DataEncryptionKeyLease checkKey = target.LeaseCheckKeyAsync(CancellationToken.None).AsTask().GetAwaiter().GetResult();
        DocumentInspection inspection = target.Inspect(stored, checkKey);
        return (target.Classify(inspection), target.DescribeUnlistedCipherText(inspection));
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void Format101_WithoutEi_WithItsAnchor_IsReportedAsMissingMetadata(JsonProcessor kind, bool bind, bool withKey)
    {
        ContainerEncryptionPolicy policy = Policy(nested: true, bind);
        var container = new BindingTarget("db/c", ["/pk"]);
        byte[] written = EncryptionProcessor.Create(kind).Encrypt(Document, _key, (bind ? policy.Rules.BindTo(container) : policy.Rules).CreateWriteOptions());
        byte[] stored = WithoutEnvelope(written);
        Assert.Contains("\"_ex\"", System.Text.Encoding.UTF8.GetString(stored), StringComparison.Ordinal);

        (DocumentState state, EncryptionException report) = Judge(policy, stored, kind, withKey);

        Assert.False(state.InTarget);
        Assert.True(state.HasUnlistedCipherText);
        Assert.Equal(EncryptionErrorKind.UnlistedCipherText, report.Kind);
        Assert.Contains(Missing, report.Message, StringComparison.Ordinal);
        Assert.Contains("'_ex'", report.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("4111", report.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("123", report.Message, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void Format3_WithoutEi_HasNoAnchor_AndKeepsTheUnlistedWording(JsonProcessor kind, bool bind, bool withKey)
    {
        ContainerEncryptionPolicy policy = Policy(nested: false, bind: false);
        _ = bind; // format 3 is unbound; the case list is shared
        byte[] stored = WithoutEnvelope(EncryptionProcessor.Create(kind).Encrypt(Document, _key, policy.Rules.CreateWriteOptions()));

        (DocumentState state, EncryptionException report) = Judge(policy, stored, kind, withKey);

        Assert.True(state.HasUnlistedCipherText);
        Assert.Equal(EncryptionErrorKind.UnlistedCipherText, report.Kind);
        Assert.DoesNotContain(Missing, report.Message, StringComparison.Ordinal);
    }
}

using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Encryption.Custom.Migration;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Migration;

/// <summary>
/// The format is part of the target state: format 3 for a top-level unbound policy, 101 for nested selectors or
/// binding. A document in the other format is outside the target, whichever processor judges it.
/// </summary>
public sealed class MigrationTargetFormatTests : IDisposable
{
    private const string Document = """{"id":"1","pk":"a","ssn":"123","card":"4111","address":{"city":"Oslo","zip":"0150"}}""";
    private static readonly BindingTarget s_container = new("db/c", ["/pk"]);

    private readonly DataEncryptionKey _key = TestKeys.Create(TestKeyKind.Protected);
    private readonly TestEncryptor _encryptor;

    public MigrationTargetFormatTests()
    {
        _encryptor = new TestEncryptor().Add("dek1", _key);
    }

    public static TheoryData<JsonProcessor> Kinds => Processors.All;

    public void Dispose() => _key.Dispose();

    private static ContainerEncryptionPolicy TopLevel(bool bind = false) =>
        new("dek1", [new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic }, new EncryptionPolicyIncludedPath("/card"), new EncryptionPolicyIncludedPath("/address")]) { Bind = bind };

    private static ContainerEncryptionPolicy Nested(bool bind) =>
        new("dek1", [new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic }, new EncryptionPolicyIncludedPath("/card"), new EncryptionPolicyIncludedPath("/address/city")]) { Bind = bind };

    private byte[] Written(ContainerEncryptionPolicy policy, JsonProcessor kind) =>
        EncryptionProcessor.Create(kind).Encrypt(Document, _key, (policy.Binds ? policy.Rules.BindTo(s_container) : policy.Rules).CreateWriteOptions());

    private DocumentState Judge(ContainerEncryptionPolicy target, byte[] document, JsonProcessor kind, bool withKey = true)
    {
        var migration = new MigrationTarget(target, [], withKey ? _encryptor : null, kind);
        using DataEncryptionKeyLease checkKey = migration.LeaseCheckKeyAsync(CancellationToken.None).AsTask().GetAwaiter().GetResult();
        return migration.Classify(document, checkKey);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void EachFormat_IsInTheTargetOfItsOwnPolicy_AndOutsideTheOthers(JsonProcessor kind)
    {
        ContainerEncryptionPolicy[] policies = [TopLevel(), TopLevel(bind: true), Nested(bind: false), Nested(bind: true)];
        foreach (ContainerEncryptionPolicy written in policies)
        {
            byte[] document = Written(written, kind);
            foreach (ContainerEncryptionPolicy target in policies)
            {
                bool same = ReferenceEquals(written, target);
                Assert.True(same == Judge(target, document, kind).InTarget, $"written {Describe(written)}, judged against {Describe(target)}");
                Assert.True(same == Judge(target, document, kind, withKey: false).InTarget, $"keyless: written {Describe(written)}, judged against {Describe(target)}");
            }
        }
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void State_CarriesTheFormat(JsonProcessor kind)
    {
        Assert.Equal(3, Judge(TopLevel(), Written(TopLevel(), kind), kind).FormatVersion);
        Assert.Equal(101, Judge(TopLevel(), Written(Nested(bind: true), kind), kind).FormatVersion);
        Assert.Equal(0, Judge(TopLevel(), Document.Utf8(), kind).FormatVersion);
    }

    [Fact]
    public void BindingTarget_WritesOnlyOnceBoundToAContainer()
    {
        var target = new MigrationTarget(Nested(bind: true), [], _encryptor);

        Assert.Null(target.WriteOptions);
        Assert.Equal(101, target.FormatVersion);
        target.Bind("db/c", ["/pk"]);

        Assert.NotNull(target.WriteOptions);
        Assert.True(target.BoundReadRules!.Binds);
    }

    [Fact]
    public void BindingTarget_OnAContainerThatCannotBind_IsRefusedAsInvalidOptions()
    {
        var binding = new MigrationTarget(TopLevel(bind: true), [], _encryptor);
        var unbound = new MigrationTarget(TopLevel(), [], _encryptor);

        EncryptionException exception = Assert.Throws<EncryptionException>(() => binding.Bind("db/c", ["/tenant/id"]));
        unbound.Bind("db/c", ["/tenant/id"]);

        Assert.Equal(EncryptionErrorKind.InvalidOptions, exception.Kind);
        Assert.Null(unbound.BoundReadRules);
        Assert.NotNull(unbound.WriteOptions);
        Assert.Equal(3, unbound.FormatVersion);
    }

    private static string Describe(ContainerEncryptionPolicy policy) =>
        $"{(policy.IncludedPaths.Any(p => p.Path.Count(c => c == '/') > 1) ? "nested" : "top-level")}{(policy.Binds ? ", bound" : "")}";
}

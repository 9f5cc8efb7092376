using Encryption.Custom.Keys;
using Encryption.Custom.Migration;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Migration;

/// <summary>What the migration job and the status query call "in the target state".</summary>
public sealed class MigrationTargetTests
{
    private const string Document = """{"id":"1","pk":"a","ssn":"123","salary":5,"name":"x"}""";
    private static readonly DataEncryptionKey s_key1 = TestKeys.Create(TestKeyKind.Reference);
    private static readonly DataEncryptionKey s_key2 = TestKeys.Create(TestKeyKind.Reference);
    private static readonly EncryptionProcessor s_processor = EncryptionProcessor.Create(JsonProcessor.Stream);

    private static readonly ContainerEncryptionPolicy s_policy = new("dek1", ["/ssn", "/salary"]);

    private static byte[] Encrypted(DataEncryptionKey key, string keyId, params string[] paths) =>
        s_processor.Encrypt(Document, key, new EncryptionOptions { DataEncryptionKeyId = keyId, PathsToEncrypt = paths });

    private static DocumentState Classify(MigrationTarget target, byte[] document)
    {
        using DataEncryptionKeyLease checkKey = target.LeaseCheckKeyAsync(CancellationToken.None).AsTask().GetAwaiter().GetResult();
        return target.Classify(document, checkKey);
    }

    private static ContainerEncryptionPolicy SsnPolicy(PathEncryptionType ssn) =>
        new("dek1", [new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = ssn }, new EncryptionPolicyIncludedPath("/salary")]);

    private static byte[] Written(ContainerEncryptionPolicy policy) => s_processor.Encrypt(Document, s_protected, policy.CreateWriteOptions());

    private static readonly DataEncryptionKey s_protected = TestKeys.Create(TestKeyKind.Protected);

    [Theory]
    [InlineData(PathEncryptionType.Randomized, PathEncryptionType.Randomized, true)]
    [InlineData(PathEncryptionType.Deterministic, PathEncryptionType.Deterministic, true)]
    [InlineData(PathEncryptionType.Randomized, PathEncryptionType.Deterministic, false)]
    [InlineData(PathEncryptionType.Deterministic, PathEncryptionType.Randomized, false)]
    public void EncryptionType_OfEachPath_IsPartOfTheTargetState(PathEncryptionType written, PathEncryptionType target, bool inTarget)
    {
        var encryptor = new TestEncryptor().Add("dek1", s_protected);

        DocumentState state = Classify(new MigrationTarget(SsnPolicy(target), [], encryptor), Written(SsnPolicy(written)));

        Assert.Equal(inTarget, state.InTarget);
        Assert.False(state.HasPlaintext);
        Assert.False(state.HasOtherPaths);
    }

    [Fact]
    public void EncryptionType_WithoutAnEncryptor_IsNotChecked()
    {
        DocumentState state = Classify(new MigrationTarget(SsnPolicy(PathEncryptionType.Deterministic), [], encryptor: null), Written(SsnPolicy(PathEncryptionType.Randomized)));

        Assert.True(state.InTarget);
    }

    [Fact]
    public void EncryptionType_WithTheTargetKeyUnavailable_ThrowsKeyUnavailable()
    {
        var target = new MigrationTarget(SsnPolicy(PathEncryptionType.Deterministic), [], new TestEncryptor());

        EncryptionException exception = Assert.Throws<EncryptionException>(() => Classify(target, Written(SsnPolicy(PathEncryptionType.Deterministic))));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, exception.Kind);
    }

    [Fact]
    public void WriteOptions_AreThePolicysOwn_DeterministicPathsIncluded()
    {
        var target = new MigrationTarget(SsnPolicy(PathEncryptionType.Deterministic), [], encryptor: null);

        Assert.Equal(["/ssn"], target.WriteOptions!.DeterministicPaths!);
        Assert.Equal(["/ssn", "/salary"], target.WriteOptions.PathsToEncrypt);
    }

    [Fact]
    public void Plaintext_InAPolicyPath_IsOutsideTheTarget()
    {
        DocumentState state = Classify(new MigrationTarget(s_policy, [], encryptor: null), Document.Utf8());

        Assert.False(state.InTarget);
        Assert.True(state.HasPlaintext);
        Assert.False(state.Encrypted);
    }

    [Fact]
    public void Plaintext_WithoutAnyPolicyPath_IsInTheTarget()
    {
        DocumentState state = Classify(new MigrationTarget(s_policy, [], encryptor: null), """{"id":"1","pk":"a","ssn":null,"name":"x"}""".Utf8());

        Assert.True(state.InTarget);
    }

    [Fact]
    public void EncryptedByThePolicy_IsInTheTarget()
    {
        DocumentState state = Classify(new MigrationTarget(s_policy, [], encryptor: null), Encrypted(s_key1, "dek1", "/ssn", "/salary"));

        Assert.True(state.InTarget);
        Assert.Equal("dek1", state.KeyId);
    }

    [Fact]
    public void EncryptedWithAnotherKey_IsOutsideTheTarget()
    {
        var target = new MigrationTarget(new ContainerEncryptionPolicy("dek2", ["/ssn", "/salary"]), ["dek1"], encryptor: null);

        DocumentState state = Classify(target, Encrypted(s_key1, "dek1", "/ssn", "/salary"));

        Assert.False(state.InTarget);
        Assert.Equal("dek1", state.KeyId);
        Assert.True(target.AcceptsSourceKey("dek1"));
        Assert.False(target.AcceptsSourceKey("dek3"));
    }

    [Fact]
    public void MissingAPolicyPath_IsPlaintext_AndAnExtraPath_IsOtherPaths()
    {
        var target = new MigrationTarget(s_policy, [], encryptor: null);

        DocumentState partial = Classify(target, Encrypted(s_key1, "dek1", "/ssn"));
        DocumentState extra = Classify(target, Encrypted(s_key1, "dek1", "/ssn", "/salary", "/name"));

        Assert.False(partial.InTarget);
        Assert.True(partial.HasPlaintext);
        Assert.False(extra.InTarget);
        Assert.True(extra.HasOtherPaths);
    }

    [Fact]
    public void DecryptTarget_OnlyUnencryptedDocumentsAreInIt()
    {
        var target = new MigrationTarget(null, ["dek1"], encryptor: null);

        Assert.True(Classify(target, Document.Utf8()).InTarget);
        Assert.False(Classify(target, Encrypted(s_key2, "dek1", "/ssn")).InTarget);
        Assert.Null(target.WriteOptions);
    }

    [Fact]
    public void MalformedMetadata_Throws()
    {
        Assert.Throws<EncryptionException>(() => Classify(new MigrationTarget(s_policy, [], encryptor: null), """{"id":"1","_ei":5}""".Utf8()));
    }
}

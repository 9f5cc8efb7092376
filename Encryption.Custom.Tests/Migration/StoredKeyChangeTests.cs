using Encryption.Custom.Migration;

namespace Encryption.Custom.Tests.Migration;

/// <summary>
/// The in-place job's refusal of a target that would change how documents are addressed
/// (<see cref="TargetComparison.DescribeStoredKeyChange"/>), decided from what the documents store at <c>/id</c> and
/// each partition key path: plaintext that the target would encrypt, ciphertext that it would decrypt, or ciphertext
/// under another DEK is refused with a message that points at the copy; a target that encrypts them exactly as stored
/// is not.
/// </summary>
public sealed class StoredKeyChangeTests
{
    private static readonly StoredPathUse s_plaintext = new(WithValues: 10, Encrypted: 0, []);
    private static readonly StoredPathUse s_underDek = new(WithValues: 10, Encrypted: 10, ["dek"]);

    private static ContainerEncryptionPolicy IdAndKey(string dek, params string[] more) => new(dek, [
        new EncryptionPolicyIncludedPath("/id") { EncryptionType = PathEncryptionType.Deterministic },
        new EncryptionPolicyIncludedPath("/pk") { EncryptionType = PathEncryptionType.Deterministic },
        .. more.Select(p => new EncryptionPolicyIncludedPath(p))]);

    [Theory]
    [InlineData("/id")]
    [InlineData("/pk")]
    public void PlaintextStored_TargetEncryptsIt_IsRefusedPointingAtTheCopy(string path)
    {
        string? reason = TargetComparison.DescribeStoredKeyChange(IdAndKey("dek"), ["/pk"], p => p == path ? s_plaintext : s_underDek);

        Assert.NotNull(reason);
        Assert.StartsWith($"The target policy encrypts {path}, which 10 document(s) store in plaintext", reason, StringComparison.Ordinal);
        Assert.Contains("--target-container", reason, StringComparison.Ordinal);
    }

    [Fact]
    public void EncryptedStored_TargetIsNoEncryption_IsRefused()
    {
        string? reason = TargetComparison.DescribeStoredKeyChange(null, ["/pk"], _ => s_underDek);

        Assert.StartsWith("10 document(s) store /id encrypted, and the target is no encryption", reason, StringComparison.Ordinal);
    }

    [Fact]
    public void EncryptedKeyStored_TargetDropsIt_IsRefused()
    {
        var target = new ContainerEncryptionPolicy("dek", [new EncryptionPolicyIncludedPath("/id") { EncryptionType = PathEncryptionType.Deterministic }, new EncryptionPolicyIncludedPath("/ssn")]);

        string? reason = TargetComparison.DescribeStoredKeyChange(target, ["/pk"], _ => s_underDek);

        Assert.StartsWith("10 document(s) store /pk encrypted, and the target does not encrypt it", reason, StringComparison.Ordinal);
    }

    [Fact]
    public void EncryptedUnderAnotherDek_IsRefusedNamingTheKeys()
    {
        string? reason = TargetComparison.DescribeStoredKeyChange(IdAndKey("dek2"), ["/pk"], _ => new StoredPathUse(10, 10, ["dek2", "dek"]));

        Assert.StartsWith("Documents store /id encrypted under the data encryption key(s) 'dek', and the target encrypts it under 'dek2'", reason, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("/tenant")]
    [InlineData("/region")]
    public void HierarchicalKey_EachLevelIsJudged(string plaintextLevel)
    {
        var target = new ContainerEncryptionPolicy("dek", [
            new EncryptionPolicyIncludedPath("/id") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/tenant") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/region") { EncryptionType = PathEncryptionType.Deterministic }]);

        string? reason = TargetComparison.DescribeStoredKeyChange(target, ["/tenant", "/region"], p => p == plaintextLevel ? s_plaintext : s_underDek);

        Assert.StartsWith($"The target policy encrypts {plaintextLevel}", reason, StringComparison.Ordinal);
    }

    [Fact]
    public void EncryptedAsStored_SameDek_AddingAPath_IsAllowed()
    {
        Assert.Null(TargetComparison.DescribeStoredKeyChange(IdAndKey("dek", "/ssn", "/salary"), ["/pk"], _ => s_underDek));
    }

    [Fact]
    public void PlaintextStored_TargetLeavesThemPlaintext_IsAllowed()
    {
        Assert.Null(TargetComparison.DescribeStoredKeyChange(new ContainerEncryptionPolicy("dek", ["/ssn", "/pkx", "/p"]), ["/pk"], _ => new StoredPathUse(10, 0, [])));
        Assert.Null(TargetComparison.DescribeStoredKeyChange(null, ["/pk"], _ => new StoredPathUse(10, 0, [])));
    }

    [Fact]
    public void EmptyContainer_AnyTarget_IsAllowed()
    {
        Assert.Null(TargetComparison.DescribeStoredKeyChange(IdAndKey("dek"), ["/pk"], _ => new StoredPathUse(0, 0, [])));
        Assert.Null(TargetComparison.DescribeStoredKeyChange(null, ["/pk"], _ => new StoredPathUse(0, 0, [])));
    }
}

namespace Encryption.Custom.Tests.Cosmos.Policy;

/// <summary>The policy validates when built, with the rules of EncryptionOptions (one owner) plus "at least one path".</summary>
public sealed class ContainerEncryptionPolicyTests
{
    [Fact]
    public void Defaults_AreDocumented()
    {
        var policy = new ContainerEncryptionPolicy("dek", ["/ssn", "/salary"]);

        Assert.Equal("dek", policy.DataEncryptionKeyId);
        Assert.Equal(["/ssn", "/salary"], policy.IncludedPaths.Select(p => p.Path));
        Assert.Equal(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, policy.EncryptionAlgorithm);
        Assert.Equal(PlaintextPolicy.WriteEncryptedForbidPlaintext, policy.PlaintextPolicy);
        Assert.Equal(PlaintextPolicy.WriteEncryptedForbidPlaintext, default(PlaintextPolicy));
        Assert.Empty(policy.AcceptedDataEncryptionKeyIds);
    }

    [Theory]
    [InlineData("ssn")]
    [InlineData("/")]
    [InlineData("/address/0")]
    [InlineData("/address/city/")]
    [InlineData("/id")]
    [InlineData("/_ei")]
    public void InvalidPath_IsRefused(string path)
    {
        EncryptionException error = Assert.Throws<EncryptionException>(() => new ContainerEncryptionPolicy("dek", [path]));
        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
    }

    [Fact]
    public void RepeatedOrNoPath_OrBadKeyId_IsRefused()
    {
        Assert.Equal(EncryptionErrorKind.InvalidOptions, Assert.Throws<EncryptionException>(() => new ContainerEncryptionPolicy("dek", ["/ssn", "/ssn"])).Kind);
        Assert.Equal(EncryptionErrorKind.InvalidOptions, Assert.Throws<EncryptionException>(() => new ContainerEncryptionPolicy("dek", Array.Empty<string>())).Kind);
        Assert.Equal(EncryptionErrorKind.InvalidOptions, Assert.Throws<EncryptionException>(() => new ContainerEncryptionPolicy(" ", ["/ssn"])).Kind);
        Assert.Throws<ArgumentNullException>(() => new ContainerEncryptionPolicy("dek", [(string)null!]));
        Assert.Throws<ArgumentNullException>(() => new ContainerEncryptionPolicy(null!, ["/ssn"]));
    }

    [Fact]
    public void InitProperties_AreValidated()
    {
        Assert.Equal(EncryptionErrorKind.InvalidOptions, Assert.Throws<EncryptionException>(() => new ContainerEncryptionPolicy("dek", ["/ssn"]) { EncryptionAlgorithm = CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized }).Kind);
        Assert.Throws<ArgumentOutOfRangeException>(() => new ContainerEncryptionPolicy("dek", ["/ssn"]) { PlaintextPolicy = (PlaintextPolicy)7 });
        Assert.Throws<ArgumentException>(() => new ContainerEncryptionPolicy("dek", ["/ssn"]) { AcceptedDataEncryptionKeyIds = [" "] });
    }

    [Fact]
    public void AcceptsKey_ThePolicyKeyAndTheListedOnes()
    {
        var policy = new ContainerEncryptionPolicy("dek2", ["/ssn"]) { AcceptedDataEncryptionKeyIds = ["dek1"] };

        Assert.True(policy.AcceptsKey("dek2"));
        Assert.True(policy.AcceptsKey("dek1"));
        Assert.False(policy.AcceptsKey("DEK1"));
        Assert.False(policy.AcceptsKey("dek3"));
    }

    [Fact]
    public void AcceptedKeys_AreCopied()
    {
        var accepted = new List<string> { "dek1" };
        var policy = new ContainerEncryptionPolicy("dek2", ["/ssn"]) { AcceptedDataEncryptionKeyIds = accepted };
        accepted.Add("dek3");

        Assert.False(policy.AcceptsKey("dek3"));
    }
}

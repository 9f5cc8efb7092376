using Encryption.Custom.Cosmos.Processing;

namespace Encryption.Custom.Tests.Cosmos.Policy;

/// <summary>The one point where every write's encryption options are decided.</summary>
public sealed class WriteOptionsResolverTests
{
    private static readonly ContainerEncryptionPolicy s_policy = new("dek1", ["/ssn", "/salary"]);

    private static EncryptionOptions Options(string dek, params string[] paths) => new() { DataEncryptionKeyId = dek, PathsToEncrypt = paths };

    [Fact]
    public void NoPolicy_RequestDecides_ButAnEmptyRequestIsRefused()
    {
        var resolver = new WriteOptionsResolver(null, JsonProcessor.Stream);
        EncryptionOptions requested = Options("dek1", "/ssn");

        Assert.Null(resolver.Resolve(null));
        Assert.Same(requested, resolver.Resolve(requested));
        EncryptionException error = Assert.Throws<EncryptionException>(() => resolver.Resolve(Options("dek1")));
        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Contains("no path", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(PlaintextPolicy.WriteEncryptedForbidPlaintext, JsonProcessor.Stream)]
    [InlineData(PlaintextPolicy.WriteEncryptedReadBoth, JsonProcessor.Newtonsoft)]
    public void EncryptingModes_WithoutRequest_UseThePolicy(PlaintextPolicy mode, JsonProcessor processor)
    {
        var policy = new ContainerEncryptionPolicy("dek1", ["/ssn", "/salary"]) { PlaintextPolicy = mode };
        EncryptionOptions resolved = new WriteOptionsResolver(policy, processor).Resolve(null)!;

        Assert.Equal("dek1", resolved.DataEncryptionKeyId);
        Assert.Equal(["/ssn", "/salary"], resolved.PathsToEncrypt!);
        Assert.Equal(processor, resolved.JsonProcessor);
    }

    [Fact]
    public void WritePlaintextMode_LeavesWritesAsRequested()
    {
        var policy = new ContainerEncryptionPolicy("dek1", ["/ssn"]) { PlaintextPolicy = PlaintextPolicy.WritePlaintextReadBoth };
        var resolver = new WriteOptionsResolver(policy, JsonProcessor.Stream);
        EncryptionOptions fewer = Options("dek2", "/other");

        Assert.Null(resolver.Resolve(null));
        Assert.Same(fewer, resolver.Resolve(fewer));
    }

    [Fact]
    public void Request_MayAddPaths_ButNotLeaveOneOut_OrChangeTheKey()
    {
        var resolver = new WriteOptionsResolver(s_policy, JsonProcessor.Stream);
        EncryptionOptions more = Options("dek1", "/notes", "/salary", "/ssn");

        Assert.Same(more, resolver.Resolve(more));
        EncryptionException missing = Assert.Throws<EncryptionException>(() => resolver.Resolve(Options("dek1", "/ssn")));
        EncryptionException otherKey = Assert.Throws<EncryptionException>(() => resolver.Resolve(Options("dek2", "/ssn", "/salary")));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, missing.Kind);
        Assert.Equal("/salary", missing.Path);
        Assert.Equal(EncryptionErrorKind.InvalidOptions, otherKey.Kind);
        Assert.Contains("'dek1'", otherKey.Message, StringComparison.Ordinal);
    }
}

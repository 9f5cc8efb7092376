using Encryption.Custom.Migration;

namespace Encryption.Custom.Tests.Migration;

/// <summary>
/// The in-place job's refusal of a target that would change how documents are addressed
/// (<see cref="TargetComparison.DescribeStoredKeyChange"/>): any target path that is a partition key path (single or
/// hierarchical) is refused with a message that points at the copy; other targets are not.
/// </summary>
public sealed class StoredKeyChangeTests
{
    [Theory]
    [InlineData("/pk")]
    [InlineData("/tenant")]
    [InlineData("/region")]
    public void APartitionKeyPath_IsRefused_PointingAtTheCopy(string path)
    {
        var target = new ContainerEncryptionPolicy("dek", ["/ssn", path]);

        string? reason = TargetComparison.DescribeStoredKeyChange(target, path == "/pk" ? ["/pk"] : ["/tenant", "/region"]);

        Assert.NotNull(reason);
        Assert.Contains(path, reason, StringComparison.Ordinal);
        Assert.Contains("--target-container", reason, StringComparison.Ordinal);
    }

    [Fact]
    public void OtherPaths_AndNoEncryption_AreNotRefused()
    {
        Assert.Null(TargetComparison.DescribeStoredKeyChange(new ContainerEncryptionPolicy("dek", ["/ssn", "/pkx", "/p"]), ["/pk"]));
        Assert.Null(TargetComparison.DescribeStoredKeyChange(null, ["/pk"]));
    }
}

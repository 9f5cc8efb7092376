using Encryption.Custom.Cosmos.Patch;

namespace Encryption.Custom.Tests.Cosmos.Patch;

public sealed class PatchPathTests
{
    [Theory]
    [InlineData("/a", "/a", false)]
    [InlineData("/a/b/0", "/a", true)]
    [InlineData("/a~1b", "/a/b", false)]
    [InlineData("/a~0b/c", "/a~b", true)]
    [InlineData("/_ei/_ep", "/_ei", true)]
    public void TryGetTopLevel_Pointer_ReturnsUnescapedTopLevelProperty(string path, string expected, bool nested)
    {
        Assert.True(PatchPath.TryGetTopLevel(path, out string topLevel, out bool isNested));
        Assert.Equal(expected, topLevel);
        Assert.Equal(nested, isNested);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("/")]
    [InlineData("a")]
    public void TryGetTopLevel_NotAPropertyPointer_ReturnsFalse(string? path) =>
        Assert.False(PatchPath.TryGetTopLevel(path, out _, out _));
}

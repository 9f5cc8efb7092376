using Encryption.Custom.Cosmos.Patch;

namespace Encryption.Custom.Tests.Cosmos.Patch;

public sealed class PatchPathTests
{
    [Theory]
    [InlineData("/a", "/a", "/a", false)]
    [InlineData("/a/b/0", "/a", "/a", true)]
    [InlineData("/a~1b", "/a/b", "/a~1b", false)]
    [InlineData("/a~0b/c", "/a~b", "/a~0b", true)]
    [InlineData("/_ei/_ep", "/_ei", "/_ei", true)]
    public void TryGetTopLevel_Pointer_ReturnsTheTopLevelPropertyInBothReadings(string path, string decoded, string literal, bool nested)
    {
        Assert.True(PatchPath.TryGetTopLevel(path, out string topLevel, out string literalTopLevel, out bool isNested));
        Assert.Equal(decoded, topLevel);
        Assert.Equal(literal, literalTopLevel);
        Assert.Equal(nested, isNested);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("/")]
    [InlineData("a")]
    public void TryGetTopLevel_NotAPropertyPointer_ReturnsFalse(string? path) =>
        Assert.False(PatchPath.TryGetTopLevel(path, out _, out _, out _));
}

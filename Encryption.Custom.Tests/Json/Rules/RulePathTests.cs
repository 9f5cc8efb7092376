using Encryption.Custom.Json.Rules;

namespace Encryption.Custom.Tests.Json.Rules;

/// <summary>Paths are parsed once, as JSON Pointers (RFC 6901), for policies and patches alike.</summary>
public sealed class RulePathTests
{
    [Theory]
    [InlineData("/ssn", new[] { "ssn" }, false)]
    [InlineData("/a~1b", new[] { "a/b" }, true)]
    [InlineData("/a~0b/c", new[] { "a~b", "c" }, true)]
    [InlineData("/a~01", new[] { "a~1" }, true)]
    [InlineData("//ssn", new[] { "", "ssn" }, false)]
    [InlineData("/cards/[]/number", new[] { "cards", "[]", "number" }, false)]
    public void TryParse_DecodesEscapesPerSegment(string text, string[] segments, bool escapes)
    {
        Assert.True(RulePath.TryParse(text, out RulePath? path, out _));

        Assert.Equal(segments, path!.Segments);
        Assert.Equal(escapes, path.HasEscapes);
        Assert.Equal(segments.Contains(string.Empty), path.HasEmptySegment);
        Assert.True(RulePath.TryParse(path.Canonical, out RulePath? again, out _));
        Assert.Equal(segments, again!.Segments);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("/")]
    [InlineData("ssn")]
    [InlineData("/a~")]
    [InlineData("/a~2b")]
    public void TryParse_RefusesWhatIsNotAPointerToAProperty(string? text)
    {
        Assert.False(RulePath.TryParse(text, out RulePath? path, out string? reason));
        Assert.Null(path);
        Assert.NotNull(reason);
    }

    [Theory]
    [InlineData("/address", "/address/city", (int)PathRelation.Ancestor)]
    [InlineData("/address/city", "/address", (int)PathRelation.Descendant)]
    [InlineData("/address/city", "/address/city", (int)PathRelation.Same)]
    [InlineData("/a~1b", "/a/b", (int)PathRelation.Unrelated)]
    [InlineData("/ssn", "/SSN", (int)PathRelation.Unrelated)]
    public void RelateTo_ComparesDecodedSegments(string a, string b, int expected)
    {
        Assert.True(RulePath.TryParse(a, out RulePath? left, out _));
        Assert.True(RulePath.TryParse(b, out RulePath? right, out _));

        Assert.Equal((PathRelation)expected, left!.RelateTo(right!));
    }
}

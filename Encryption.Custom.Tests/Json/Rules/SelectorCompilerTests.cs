using Encryption.Custom.Json.Rules;

namespace Encryption.Custom.Tests.Json.Rules;

/// <summary>
/// A policy's selectors compile once into rules and a selector tree: nested paths and the array wildcard are
/// accepted, and every selector that would make a value's fate ambiguous is refused naming it and why.
/// </summary>
public sealed class SelectorCompilerTests
{
    [Theory]
    [InlineData("/address/city")]
    [InlineData("/cards/[]/number")]
    [InlineData("/a/[]/[]")]
    [InlineData("/a/[]")]
    [InlineData("/_other/x")]
    [InlineData("/a/b/c/d/e/f/g/h")]
    public void NestedSelector_IsAccepted(string selector)
    {
        PathRule[] rules = PolicyPathCompiler.Compile([(selector, false)]);

        Assert.Equal(selector, Assert.Single(rules).Text);
    }

    [Theory]
    [InlineData("/[]/a", "wildcard")]
    [InlineData("/a/b[]", "whole segment")]
    [InlineData("/a/[0]", "whole segment")]
    [InlineData("/cards/0/number", "array index")]
    [InlineData("/cards/-", "array index")]
    [InlineData("/a/b/c/d/e/f/g/h/i", "at most 8")]
    [InlineData("/a//b", "empty")]
    [InlineData("/a/", "empty")]
    [InlineData("/a~1b/c", "escapes")]
    [InlineData("/id/x", "id")]
    [InlineData("/ttl/x", "owns")]
    [InlineData("/_ei/x", "_ei")]
    [InlineData("/_ex", "anchor")]
    [InlineData("/_ex/x", "anchor")]
    [InlineData("/_rid/x", "owns")]
    [InlineData("/_ts/x", "owns")]
    public void InvalidSelector_IsRefusedSayingWhy(string selector, string reason)
    {
        EncryptionException error = Assert.Throws<EncryptionException>(() => PolicyPathCompiler.Compile([(selector, false)]));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Equal(selector, error.Path);
        Assert.Contains(reason, error.Message, StringComparison.OrdinalIgnoreCase);
    }

    [Theory]
    [InlineData("/address", "/address/city", "overlaps")]
    [InlineData("/address/city", "/address", "overlaps")]
    [InlineData("/cards/[]", "/cards/[]/number", "overlaps")]
    [InlineData("/cards/[]/number", "/cards/[]/number", "more than once")]
    [InlineData("/address/city", "/address/City", "only in case")]
    [InlineData("/Address", "/address/city", "only in case")]
    [InlineData("/ssn", "/SSN", "only in case")]
    public void SelectorsThatOverlapOrDifferInCase_AreRefused(string first, string second, string reason)
    {
        EncryptionException error = Assert.Throws<EncryptionException>(() => PolicyPathCompiler.Compile([(first, false), (second, false)]));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Equal(second, error.Path);
        Assert.Contains(reason, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void SiblingSelectors_AndAWildcardBesideNames_AreAccepted()
    {
        PathRule[] rules = PolicyPathCompiler.Compile([("/address/city", false), ("/address/zip", true), ("/a/[]/x", false), ("/a/b", false), ("/ssn", false)]);

        Assert.Equal(5, rules.Length);
    }

    [Fact]
    public void TopLevelPaths_KeepTheirRules()
    {
        // Only /_ei and /_ex are refused at the top level, and /id unless deterministic (an encrypted id is looked
        // up by its ciphertext); names the service owns stay the caller's choice there.
        Assert.Single(PolicyPathCompiler.Compile([("/ttl", false)]));
        Assert.Single(PolicyPathCompiler.Compile([("/0", false)]));
        Assert.Single(PolicyPathCompiler.Compile([("/a[0]", false)]));
        Assert.Equal(EncryptionErrorKind.InvalidOptions, Assert.Throws<EncryptionException>(() => PolicyPathCompiler.Compile([("/id", false)])).Kind);
        Assert.Single(PolicyPathCompiler.Compile([("/id", true)]));
    }

    [Fact]
    public void NestedSelectorCount_IsLimited()
    {
        (string, bool)[] many = [.. Enumerable.Range(0, SelectorRules.MaxNestedSelectors).Select(i => ($"/a/p{i}", false))];
        Assert.Equal(SelectorRules.MaxNestedSelectors, PolicyPathCompiler.Compile(many).Length);

        (string, bool)[] tooMany = [.. many, ("/a/last", false)];
        EncryptionException error = Assert.Throws<EncryptionException>(() => PolicyPathCompiler.Compile(tooMany));
        Assert.Equal("/a/last", error.Path);

        // Top-level paths are not counted.
        (string, bool)[] topLevel = [.. many, .. Enumerable.Range(0, 500).Select(i => ($"/t{i}", false))];
        Assert.Equal(SelectorRules.MaxNestedSelectors + 500, PolicyPathCompiler.Compile(topLevel).Length);
    }

    [Fact]
    public void Tree_FindsEachSelectorByItsSegments_ExactlyOrIgnoringCase()
    {
        var builder = new SelectorTreeBuilder();
        string[] selectors = ["/address/city", "/cards/[]/number", "/a/[]/[]"];
        for (int i = 0; i < selectors.Length; i++)
        {
            Assert.True(RulePath.TryParse(selectors[i], out RulePath? path, out _));
            builder.Add(path!, i);
        }

        SelectorNode root = builder.Build();
        SelectorNode address = root.GetChild(root.FindChild("address"u8));
        Assert.False(address.IsLeaf);
        Assert.Equal(0, address.GetChild(address.FindChild("city")).RuleIndex);
        Assert.Equal(-1, address.FindChild("City"u8));
        Assert.Equal(address.FindChild("city"u8), address.FindChildIgnoringCase("CITY"u8));
        Assert.Equal(-1, root.FindChild("cards"u8) is int c && c >= 0 ? root.GetChild(c).FindChild("number") : 0);
        Assert.Equal(1, root.GetChild(root.FindChild("cards")).Elements!.GetChild(0).RuleIndex);
        Assert.Equal(2, root.GetChild(root.FindChild("a")).Elements!.Elements!.RuleIndex);
        Assert.Equal(-1, root.FindChild("id"u8));
    }
}

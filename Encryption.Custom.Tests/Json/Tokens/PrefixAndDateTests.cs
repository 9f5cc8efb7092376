using System.Text;
using Encryption.Custom.Json.Tokens;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Tests.Json.Tokens;

/// <summary>Prefix tokens (NFC, case folding, padding to a fixed count) and the canonical date-time form.</summary>
public sealed class PrefixAndDateTests : IDisposable
{
    private readonly DataEncryptionKey _key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
    private readonly Encryption.Custom.Keys.DataEncryptionKeyLease _lease;

    public PrefixAndDateTests() => _lease = Encryption.Custom.Keys.DataEncryptionKeyLease.Acquire(_key);

    public void Dispose()
    {
        _lease.Dispose();
        _key.Dispose();
    }

    [Fact]
    public void Prefix_ComposedAndDecomposedForms_HaveTheSameTokens()
    {
        QueryTokenRule rule = QueryTokenRule.ForPrefix("/name", 1, 4, ignoreCase: false, 12);
        Assert.Equal(Tokens(rule, "Ame\u0301lie"), Tokens(rule, "Am\u00e9lie"));
    }

    [Fact]
    public void Prefix_CaseFolding_OnlyWhenDeclared()
    {
        QueryTokenRule folded = QueryTokenRule.ForPrefix("/name", 1, 4, ignoreCase: true, 12);
        QueryTokenRule exact = QueryTokenRule.ForPrefix("/name", 1, 4, ignoreCase: false, 12);
        Assert.Equal(Tokens(folded, "ADA LOVELACE"), Tokens(folded, "ada lovelace"));
        Assert.NotEqual(Tokens(exact, "ADA LOVELACE"), Tokens(exact, "ada lovelace"));
    }

    [Fact]
    public void Prefix_EveryValueHasTheSameCount_AndSharesExactlyItsPrefixes()
    {
        QueryTokenRule rule = QueryTokenRule.ForPrefix("/name", 2, 6, ignoreCase: false, 12);
        byte[][] shortValue = Tokens(rule, "Ab");
        byte[][] longValue = Tokens(rule, "Abcdefgh");
        byte[][] emoji = Tokens(rule, "Ab\U0001F600d");
        Assert.Equal(5, shortValue.Length);
        Assert.Equal(5, longValue.Length);
        Assert.Equal(shortValue[0], longValue[0]); // "Ab"
        Assert.Equal(emoji[0], longValue[0]);
        Assert.Equal(Token(rule, "Ab\U0001F600"), emoji[1]); // one rune, four UTF-8 bytes
        Assert.DoesNotContain(shortValue.Skip(1), t => longValue.Any(l => l.AsSpan().SequenceEqual(t)));
        Assert.Equal(Token(rule, "Abcdef"), longValue[4]);
        Assert.Single(Tokens(rule, "A").Select(Convert.ToHexString).Intersect(longValue.Select(Convert.ToHexString)).DefaultIfEmpty(), t => t is null);
    }

    [Fact]
    public void Tokens_OfTwoPaths_NeverMeet()
    {
        QueryTokenRule first = QueryTokenRule.ForPrefix("/first", 1, 3, false, 12);
        QueryTokenRule second = QueryTokenRule.ForPrefix("/second", 1, 3, false, 12);
        Assert.Empty(Tokens(first, "abc").Select(Convert.ToHexString).Intersect(Tokens(second, "abc").Select(Convert.ToHexString)));
    }

    [Fact]
    public void Prefix_NumberOrInvalidDeclaration_IsRefused()
    {
        QueryTokenRule rule = QueryTokenRule.ForPrefix("/name", 1, 3, false, 12);
        EncryptionException error = Assert.Throws<EncryptionException>(() => QueryTokens.ComputeFromPlainText(_key, rule, TypeMarker.Long, BitConverter.GetBytes(12L), new byte[36]));
        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Contains("/name", error.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => QueryTokenRule.ForPrefix("/name", 0, 3, false, 12));
        Assert.Throws<ArgumentException>(() => QueryTokenRule.ForPrefix("/name", 4, 3, false, 12));
        Assert.Throws<ArgumentException>(() => QueryTokenRule.ForPrefix("/name", 1, 3, false, 7));
    }

    [Theory]
    [InlineData("2024-02-29T12:30:45Z", "2024-02-29T12:30:45+00:00")]
    [InlineData("2024-02-29T12:30:45.5Z", "2024-02-29T14:30:45.5000000+02:00")]
    [InlineData("2024-01-01T00:30:00-01:00", "2024-01-01T01:30:00Z")]
    public void DateTime_SameInstant_SameTicks(string first, string second)
    {
        Assert.True(IsoDateTime.TryParseUtcTicks(Encoding.UTF8.GetBytes(first), out long a));
        Assert.True(IsoDateTime.TryParseUtcTicks(Encoding.UTF8.GetBytes(second), out long b));
        Assert.Equal(a, b);
        Assert.Equal(DateTimeOffset.Parse(first, System.Globalization.CultureInfo.InvariantCulture).UtcTicks, a);
    }

    [Theory]
    [InlineData("2024-02-29T12:30:45")] // no offset: names no instant
    [InlineData("2023-02-29T12:30:45Z")]
    [InlineData("2024-02-29 12:30:45Z")]
    [InlineData("2024-02-29T12:30:45.12345678Z")]
    [InlineData("2024-02-29T12:30:45.Z")]
    [InlineData("2024-02-29")]
    [InlineData("2024-02-29T24:00:00Z")]
    public void DateTime_OtherShapes_AreRefused(string text) =>
        Assert.False(IsoDateTime.TryParseUtcTicks(Encoding.UTF8.GetBytes(text), out _));

    private byte[] Token(QueryTokenRule rule, string prefix)
    {
        byte[] token = new byte[rule.TokenLength];
        string normalized = prefix.Normalize(NormalizationForm.FormC);
        QueryTokens.Compute(_key, rule, QueryTokenKind.Prefix, normalized.EnumerateRunes().Count(), Encoding.UTF8.GetBytes(normalized), token);
        return token;
    }

    private byte[][] Tokens(QueryTokenRule rule, string value)
    {
        byte[] all = new byte[rule.TokenCount * rule.TokenLength];
        QueryTokens.ComputeFromPlainText(_key, rule, TypeMarker.String, Encoding.UTF8.GetBytes(value), all);
        return [.. all.Chunk(rule.TokenLength)];
    }
}

using System.Text;
using Encryption.Custom.Tool.KeyFiles;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tool.Tests.KeyFiles;

public sealed class HexKeyDecoderTests
{
    private static readonly string[] s_whitespace = [" ", "\t", "\r", "\n", "\r\n", string.Empty];

    [Fact]
    public void HexValue_EveryByte_MatchesTheHexadecimalDigitsOrMinusOne()
    {
        for (int c = 0; c < 256; c++)
        {
            int expected = c switch
            {
                >= '0' and <= '9' => c - '0',
                >= 'a' and <= 'f' => c - 'a' + 10,
                >= 'A' and <= 'F' => c - 'A' + 10,
                _ => -1,
            };

            Assert.True(expected == HexKeyDecoder.HexValue(c), $"byte 0x{c:x2}");
        }
    }

    [Fact]
    public void Feed_AnyKeyInAnyCaseWhitespaceAndChunking_DecodesTheKey()
    {
        Gen<(byte[] Key, string Text, int Chunk)> cases =
            from key in Gen.ArrayOf(Gen.Choose(0, 255).Select(b => (byte)b), 32)
            from upper in Gen.ArrayOf(Gen.Elements(true, false), 64)
            from before in Gen.ArrayOf(Gen.Elements(s_whitespace), 3)
            from after in Gen.ArrayOf(Gen.Elements(s_whitespace), 3)
            from chunk in Gen.Choose(1, 70)
            select (key, string.Concat(before) + CaseMix(Convert.ToHexStringLower(key), upper) + string.Concat(after), chunk);

        Prop.ForAll(cases.ToArbitrary(), c =>
        {
            byte[] decoded = new byte[32];
            Assert.Null(Decode(Encoding.ASCII.GetBytes(c.Text), c.Chunk, decoded));
            Assert.Equal(c.Key, decoded);
        }).QuickCheckThrowOnFailure();
    }

    [Theory]
    [InlineData("", "no hexadecimal digits")]
    [InlineData(" \n\t\r\n", "no hexadecimal digits")]
    [InlineData("0123", "fewer than 64")]
    [InlineData("L63", "fewer than 64")]
    [InlineData("L65", "more than 64")]
    [InlineData("L64 00", "more than 64")]
    [InlineData("L32 L32", "interrupted by whitespace")]
    [InlineData("L63g", "neither a hexadecimal digit nor whitespace")]
    [InlineData("0xL62", "neither a hexadecimal digit nor whitespace")]
    [InlineData("\uFEFFL64", "neither a hexadecimal digit nor whitespace")]
    [InlineData("L64\0", "neither a hexadecimal digit nor whitespace")]
    [InlineData("L64\f", "neither a hexadecimal digit nor whitespace")]
    public void Feed_NotExactlyOneKey_NamesTheProblem(string pattern, string expected)
    {
        byte[] text = Encoding.UTF8.GetBytes(Expand(pattern));
        for (int chunk = 1; chunk <= text.Length + 1; chunk += 7)
        {
            Assert.Contains(expected, Decode(text, chunk, new byte[32]), StringComparison.Ordinal);
        }
    }

    // "L<n>" stands for n hexadecimal digits.
    private static string Expand(string pattern) => System.Text.RegularExpressions.Regex.Replace(
        pattern,
        "L([0-9]+)",
        m => new string('a', int.Parse(m.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture)));

    private static string? Decode(byte[] text, int chunk, byte[] key)
    {
        var decoder = new HexKeyDecoder();
        for (int offset = 0; offset < text.Length; offset += chunk)
        {
            string? problem = decoder.Feed(text.AsSpan(offset, Math.Min(chunk, text.Length - offset)), key);
            if (problem is not null)
            {
                return problem;
            }
        }

        return decoder.Finish();
    }

    private static string CaseMix(string hex, bool[] upper)
    {
        char[] chars = hex.ToCharArray();
        for (int i = 0; i < chars.Length; i++)
        {
            chars[i] = upper[i] ? char.ToUpperInvariant(chars[i]) : chars[i];
        }

        return new string(chars);
    }
}

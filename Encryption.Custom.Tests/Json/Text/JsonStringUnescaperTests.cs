using System.Text;
using System.Text.Json;
using Encryption.Custom.Json.Text;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Json.Text;

/// <summary>
/// The unescaper reads a token the scan has judged without a reader; it must give the reader's bytes for every string
/// and refuse exactly what the reader refuses (lone surrogates), with the library's error.
/// </summary>
public sealed class JsonStringUnescaperTests
{
    // Pieces of string content: plain text of one to four UTF-8 bytes per character, every short escape, and \u
    // escapes of any code unit (surrogates paired, lone, reversed), in either case of hex digits.
    private static readonly Gen<string> s_pieces = Gen.OneOf(
        Gen.Elements("a", "Z", " ", "é", "漢", "😀", "\u2028", "~"),
        Gen.Elements("\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"),
        Gen.Choose(0, 0xFFFF).Zip(Gen.Elements(true, false)).Select(unit => "\\u" + unit.Item1.ToString(unit.Item2 ? "X4" : "x4", System.Globalization.CultureInfo.InvariantCulture)),
        Gen.Choose(0xD800, 0xDBFF).Zip(Gen.Choose(0xDC00, 0xDFFF)).Select(pair => $"\\u{pair.Item1:X4}\\u{pair.Item2:x4}"));

    [Fact]
    public void Unescape_GeneratedStrings_GivesTheReadersBytesOrRefusesWhatItRefuses()
    {
        int refused = 0;
        int unescaped = 0;
        Prop.ForAll(Gen.ListOf(s_pieces).Select(pieces => "\"" + string.Concat(pieces) + "\"").ToArbitrary(), token =>
        {
            byte[] input = Encoding.UTF8.GetBytes(token);
            byte[] expected = new byte[input.Length];
            int expectedLength = -1;
            var reader = new Utf8JsonReader(input);
            reader.Read();
            try
            {
                expectedLength = reader.CopyString(expected);
            }
            catch (InvalidOperationException)
            {
                // The reader's refusal of a lone surrogate.
            }

            byte[] actual = new byte[input.Length];
            try
            {
                int length = JsonStringUnescaper.Unescape(input, actual);
                unescaped++;
                return expectedLength >= 0 && actual.AsSpan(0, length).SequenceEqual(expected.AsSpan(0, expectedLength));
            }
            catch (EncryptionException exception) when (exception.Kind == EncryptionErrorKind.MalformedDocument)
            {
                refused++;
                return expectedLength < 0 && !exception.Message.Contains(token, StringComparison.Ordinal);
            }
        }).QuickCheckThrowOnFailure();

        Assert.True(refused > 0 && unescaped > 0, $"refused {refused}, unescaped {unescaped}: both must occur");
    }

    [Theory]
    [InlineData("\"\\x41\"")]
    [InlineData("\"\\u12G4\"")]
    [InlineData("\"\\u12\"")]
    [InlineData("\"abc\\\"")]
    public void Unescape_EscapeJsonDoesNotAllow_IsRefused(string token)
    {
        byte[] input = Encoding.UTF8.GetBytes(token);

        EncryptionException exception = Assert.Throws<EncryptionException>(() => JsonStringUnescaper.Unescape(input, new byte[input.Length]));

        Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
    }
}

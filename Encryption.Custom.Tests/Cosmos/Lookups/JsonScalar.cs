using System.Globalization;
using System.Numerics;
using System.Text;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Cosmos.Lookups;

/// <summary>
/// One JSON scalar in every form a caller can give it: the JSON text a document holds, the SQL literal a query may
/// write instead (<see langword="null"/> when there is none: SQL reads a leading minus as an operator), and the .NET
/// value of a query parameter.
/// </summary>
public sealed record JsonScalar(string Json, string? SqlLiteral, object Parameter, string? Text)
{
    private static readonly string[] s_specials = ["'", "\"", "\\", "/", "\b", "\f", "\n", "\r", "\t", "\0", "\u001f", "é", "€", "漢", "\u2028", "\uFFFF", "😀", "𝄞", " ", "%", "+"];
    private static readonly long[] s_edgeLongs = [0, -1, 1, long.MinValue, long.MaxValue, long.MinValue + 1, long.MaxValue - 1, 9007199254740993, int.MinValue, int.MaxValue];

    /// <summary>Strings (Unicode, escapes, lone surrogates, lengths around the id's limit), integers across int64 and beyond, doubles, -0, exponents, booleans.</summary>
    public static Arbitrary<JsonScalar> Arbitrary { get; } = Gen.Frequency(
        (4, Strings()),
        (2, Gen.Elements(s_edgeLongs).Or(ArbMap.Default.GeneratorFor<long>()).Select(FromInt64)),
        (1, BeyondInt64()),
        (2, ArbMap.Default.GeneratorFor<NormalFloat>().Select(f => FromDouble(f.Get))),
        (3, NumberText().Select(FromNumberText)),
        (1, Gen.Elements(true, false).Select(FromBoolean))).ToArbitrary();

    public override string ToString() => Json;

    /// <summary>A string: its JSON with a random choice of escapes.</summary>
    public static JsonScalar FromString(string value, int escapes) =>
        new(Quote(value, escapes), SqlQuote(value), value, value);

    private static JsonScalar FromInt64(long value)
    {
        string text = value.ToString(CultureInfo.InvariantCulture);
        return new(text, value < 0 ? null : text, value, null);
    }

    private static JsonScalar FromDouble(double value)
    {
        // As the client's serializer spells the parameter (100.0 stays a double), so the document holds that number.
        string text = Newtonsoft.Json.JsonConvert.SerializeObject(value);
        return new(text, text.StartsWith('-') ? null : text, value, null);
    }

    // The text itself is the parameter (a stream: the serializer does not respell it), so nothing but the rules decides.
    private static JsonScalar FromNumberText(string text) => new(text, text.StartsWith('-') ? null : text, new NumberText(text), null);

    private static JsonScalar FromBoolean(bool value) => new(value ? "true" : "false", value ? "true" : "false", value, null);

    private static Gen<JsonScalar> Strings()
    {
        Gen<string> piece = Gen.Frequency(
            (6, Gen.Choose(0x20, 0x7e).Select(c => ((char)c).ToString())),
            (3, Gen.Elements(s_specials)),
            (2, Gen.Choose(0x80, 0xD7FF).Select(c => ((char)c).ToString())),
            (1, Gen.Choose(0x10000, 0x10FFFF).Select(char.ConvertFromUtf32)),
            (1, Gen.Elements("\uD800", "\uDFFF", "a\uDC00b")));

        // Mostly short; sometimes around the 127 UTF-8 bytes an encrypted id may hold.
        Gen<int> length = Gen.Frequency((8, Gen.Choose(0, 24)), (2, Gen.Choose(40, 140)));
        return from count in length
               from pieces in Gen.ArrayOf(piece, count)
               from escapes in Gen.Choose(0, int.MaxValue)
               select FromString(string.Concat(pieces), escapes);
    }

    // Integers just beyond int64 either way, and far beyond.
    private static Gen<JsonScalar> BeyondInt64() =>
        from offset in Gen.Choose(1, 1000)
        from negative in Gen.Elements(true, false)
        from extra in Gen.Choose(0, 30)
        let value = (negative ? new BigInteger(long.MinValue) - offset : new BigInteger(long.MaxValue) + offset) * BigInteger.Pow(10, extra)
        select FromNumberText(value.ToString(CultureInfo.InvariantCulture));

    // The JSON number grammar: sign, integer part, fraction, exponent (-0, 0.0, 1E+2, 1e400 and 1e-400 included).
    private static Gen<string> NumberText() =>
        from sign in Gen.Elements("", "", "-")
        from integer in Gen.Frequency((2, Gen.Constant("0")), (5, Digits(1, 21, leadingZero: false)))
        from fraction in Gen.Frequency((2, Gen.Constant("")), (2, Digits(1, 20, leadingZero: true).Select(d => "." + d)))
        from exponent in Gen.Frequency((3, Gen.Constant("")), (2, from e in Gen.Elements("e", "E") from s in Gen.Elements("", "+", "-") from d in Gen.Choose(0, 400) select e + s + d.ToString(CultureInfo.InvariantCulture)))
        select sign + integer + fraction + exponent;

    private static Gen<string> Digits(int min, int max, bool leadingZero) =>
        from count in Gen.Choose(min, max)
        from first in Gen.Choose(leadingZero ? 0 : 1, 9)
        from rest in Gen.ArrayOf(Gen.Choose(0, 9), count - 1)
        select first.ToString(CultureInfo.InvariantCulture) + string.Concat(rest);

    // JSON string text: quotes, backslashes and controls escaped as JSON requires; other characters raw or \u-escaped
    // at random (a lone surrogate can only be escaped), "/" sometimes as "\/".
    private static string Quote(string value, int seed)
    {
        var random = new Random(seed);
        var json = new StringBuilder("\"");
        foreach (char c in value)
        {
            if (c is '"' or '\\')
            {
                json.Append('\\').Append(c);
            }
            else if (c < 0x20 || char.IsSurrogate(c) || random.Next(4) == 0)
            {
                json.Append(CultureInfo.InvariantCulture, $"\\u{(int)c:x4}");
            }
            else
            {
                json.Append(c == '/' && random.Next(2) == 0 ? "\\/" : c.ToString());
            }
        }

        return json.Append('"').ToString();
    }

    // A SQL string literal: single quotes, SQL escapes for the quote, the backslash and controls.
    private static string SqlQuote(string value)
    {
        var sql = new StringBuilder("'");
        foreach (char c in value)
        {
            sql.Append(c switch
            {
                '\'' => "\\'",
                '\\' => "\\\\",
                '\n' => "\\n",
                '\t' => "\\t",
                < ' ' => string.Create(CultureInfo.InvariantCulture, $"\\u{(int)c:X4}"),
                _ => c.ToString(),
            });
        }

        return sql.Append('\'').ToString();
    }
}

/// <summary>A number parameter given as its JSON text (sent to the serializer as a stream, so it is not respelled).</summary>
public sealed record NumberText(string Json)
{
    public Stream ToStream() => new MemoryStream(Encoding.UTF8.GetBytes(Json));
}

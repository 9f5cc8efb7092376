using System.Globalization;
using System.Text;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.TestSupport;

/// <summary>
/// FsCheck generators of JSON documents as text: nested values with every scalar form (escaped and raw strings,
/// surrogate pairs, int64 edges, doubles with exponents and ".0"), random whitespace, and a random subset of the
/// top-level properties to encrypt.
/// </summary>
public static class JsonGenerators
{
    private static readonly string[] s_pieces = ["a", "Z", "0", " ", "é", "漢", "😀", "\"", "\\", "/", "\n", "\t", "\u0001", "\u2028", "<", "+"];
    private static readonly string[] s_names = ["a", "b", "name", "Sens", "x_y", "é", "值", "😀", "with space", "quote\"d", "n1", "n2", "n3", "_rid", "ttl"];
    private static readonly long[] s_edgeLongs = [0, -1, 1, long.MinValue, long.MaxValue, 9007199254740993, int.MinValue, int.MaxValue];

    /// <summary>A document and the paths to encrypt in it.</summary>
    public static Arbitrary<DocumentShape> Documents { get; } = DocumentGen().ToArbitrary();

    private static Gen<DocumentShape> DocumentGen() =>
        from count in Gen.Choose(0, 8)
        from names in Gen.Shuffle(s_names)
        from values in Gen.ArrayOf(Value(3), count)
        from flags in Gen.ArrayOf(Gen.Elements(true, false), count)
        from spacing in Gen.Choose(0, 2)
        from seed in Gen.Choose(0, int.MaxValue)
        select Build(names.Take(count).ToArray(), values, flags, spacing, seed);

    private static DocumentShape Build(string[] names, JsonText[] values, bool[] encrypt, int spacing, int seed)
    {
        var random = new Random(seed);
        var json = new StringBuilder();
        json.Append('{').Append(Space(spacing, random)).Append("\"id\":\"doc\"");
        var paths = new List<string>();
        for (int i = 0; i < names.Length; i++)
        {
            json.Append(',').Append(Space(spacing, random)).Append(QuoteName(names[i], random)).Append(Space(spacing, random)).Append(':').Append(Space(spacing, random));
            values[i].Render(json, spacing, random);
            if (encrypt[i])
            {
                paths.Add("/" + names[i]);
            }
        }

        json.Append(Space(spacing, random)).Append('}');
        return new DocumentShape("generated", json.ToString(), paths.ToArray());
    }

    private static Gen<JsonText> Value(int depth)
    {
        var scalars = new List<(int, Gen<JsonText>)>
        {
            (3, StringValue()),
            (2, Gen.Elements(s_edgeLongs).Or(Gen.Choose(int.MinValue, int.MaxValue).Select(i => (long)i * 3)).Select(l => JsonText.Raw(l.ToString(CultureInfo.InvariantCulture)))),
            (2, DoubleValue()),
            (1, Gen.Elements("true", "false", "null").Select(JsonText.Raw)),
        };

        if (depth > 0)
        {
            scalars.Add((1, Gen.ListOf(Value(depth - 1), 4).Select(items => JsonText.Array(items.ToArray()))));
            scalars.Add((1, from items in Gen.ArrayOf(Value(depth - 1), 4)
                            from names in Gen.Shuffle(s_names)
                            select JsonText.Object(names.Take(items.Length).ToArray(), items)));
        }

        return Gen.Frequency(scalars);
    }

    private static Gen<JsonText> StringValue() =>
        Gen.ListOf(Gen.Elements(s_pieces)).Select(pieces => JsonText.String(string.Concat(pieces)));

    private static Gen<JsonText> DoubleValue() =>
        from mantissa in Gen.Choose(-1_000_000, 1_000_000)
        from exponent in Gen.Choose(-30, 30)
        from form in Gen.Choose(0, 2)
        select JsonText.Raw(FormatDouble(mantissa * Math.Pow(10, exponent), form));

    private static string FormatDouble(double value, int form)
    {
        string text = form switch
        {
            0 => value.ToString("R", CultureInfo.InvariantCulture),
            1 => value.ToString("E10", CultureInfo.InvariantCulture),
            _ => value.ToString("0.0###############", CultureInfo.InvariantCulture),
        };

        // Keep it a double (marker 3): an integral-looking literal would be a long.
        return text.AsSpan().IndexOfAny(".eE") < 0 ? text + ".0" : text;
    }

    private static string Space(int spacing, Random random) => spacing switch
    {
        0 => string.Empty,
        1 => random.Next(2) == 0 ? string.Empty : " ",
        _ => random.Next(3) switch { 0 => string.Empty, 1 => "\n  ", _ => "\t" },
    };

    private static string QuoteName(string name, Random random) => JsonText.Quote(name, random);

    /// <summary>A JSON value rendered with random (but valid) escaping and whitespace.</summary>
    public abstract class JsonText
    {
        public static JsonText Raw(string text) => new RawText(text);

        public static JsonText String(string value) => new StringText(value);

        public static JsonText Array(JsonText[] items) => new ArrayText(items);

        public static JsonText Object(string[] names, JsonText[] values) => new ObjectText(names, values);

        public static string Quote(string value, Random random)
        {
            var text = new StringBuilder("\"");
            foreach (Rune rune in value.EnumerateRunes())
            {
                switch (rune.Value)
                {
                    case '"': text.Append("\\\""); break;
                    case '\\': text.Append("\\\\"); break;
                    case '\n': text.Append("\\n"); break;
                    case '\t': text.Append("\\t"); break;
                    case < ' ': text.Append(CultureInfo.InvariantCulture, $"\\u{rune.Value:x4}"); break;
                    default:
                        // Sometimes escape what needs no escaping; a surrogate pair is escaped as a whole.
                        if (random.Next(4) == 0)
                        {
                            foreach (char unit in rune.ToString())
                            {
                                text.Append(CultureInfo.InvariantCulture, $"\\u{(int)unit:X4}");
                            }
                        }
                        else
                        {
                            text.Append(rune.ToString());
                        }

                        break;
                }
            }

            return text.Append('"').ToString();
        }

        public abstract void Render(StringBuilder json, int spacing, Random random);

        public override string ToString()
        {
            var json = new StringBuilder();
            Render(json, 0, new Random(0));
            return json.ToString();
        }

        private sealed class RawText(string text) : JsonText
        {
            public override void Render(StringBuilder json, int spacing, Random random) => json.Append(text);
        }

        private sealed class StringText(string value) : JsonText
        {
            public override void Render(StringBuilder json, int spacing, Random random) => json.Append(Quote(value, random));
        }

        private sealed class ArrayText(JsonText[] items) : JsonText
        {
            public override void Render(StringBuilder json, int spacing, Random random)
            {
                json.Append('[').Append(Space(spacing, random));
                for (int i = 0; i < items.Length; i++)
                {
                    if (i > 0)
                    {
                        json.Append(',').Append(Space(spacing, random));
                    }

                    items[i].Render(json, spacing, random);
                }

                json.Append(Space(spacing, random)).Append(']');
            }
        }

        private sealed class ObjectText(string[] names, JsonText[] values) : JsonText
        {
            public override void Render(StringBuilder json, int spacing, Random random)
            {
                json.Append('{');
                for (int i = 0; i < names.Length; i++)
                {
                    if (i > 0)
                    {
                        json.Append(',');
                    }

                    json.Append(Space(spacing, random)).Append(Quote(names[i], random)).Append(':').Append(Space(spacing, random));
                    values[i].Render(json, spacing, random);
                }

                json.Append(Space(spacing, random)).Append('}');
            }
        }
    }
}

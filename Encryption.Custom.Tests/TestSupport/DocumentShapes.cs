using System.Globalization;
using System.Text;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;

namespace Encryption.Custom.Tests.TestSupport;

/// <summary>
/// The shared registry of document shapes every contract test runs over: escapes and unicode, surrogate pairs,
/// empty and nested containers, nulls, numbers of every form, whitespace, big strings, many properties.
/// </summary>
public static class DocumentShapes
{
    public const string KeyId = "dek1";

    /// <summary>wire-format.md §3.2.</summary>
    public const string FixtureJson =
        "{\"id\":\"fixture-doc-1\",\"PlainStr\":\"passthrough \\\"quoted\\\"\",\"SensStr\":\"secret é😀 value\",\"SensLong\":9007199254740993,\"SensDouble\":-2.5,\"SensBool\":true,\"SensObj\":{\"inner\":\"obj \\\"x\\\"\",\"n\":null},\"SensArr\":[1,\"two\",false,null]}";

    public static readonly string[] FixturePaths = ["/SensStr", "/SensLong", "/SensDouble", "/SensBool", "/SensObj", "/SensArr"];

    private static readonly Dictionary<string, DocumentShape> s_shapes = Build().ToDictionary(s => s.Name, StringComparer.Ordinal);

    /// <summary>Every shape name.</summary>
    public static TheoryData<string> Names => new(s_shapes.Keys);

    /// <summary>Every (processor, shape) pair.</summary>
    public static MatrixTheoryData<JsonProcessor, string> ProcessorsAndNames => new([JsonProcessor.Stream, JsonProcessor.Newtonsoft], s_shapes.Keys);

    /// <summary>Every (encrypting processor, decrypting processor, shape).</summary>
    public static MatrixTheoryData<JsonProcessor, JsonProcessor, string> CrossNames => new(
        [JsonProcessor.Stream, JsonProcessor.Newtonsoft],
        [JsonProcessor.Stream, JsonProcessor.Newtonsoft],
        s_shapes.Keys);

    public static IEnumerable<DocumentShape> All => s_shapes.Values;

    public static DocumentShape Get(string name) => s_shapes[name];

    private static IEnumerable<DocumentShape> Build()
    {
        yield return new("fixture", FixtureJson, FixturePaths);

        yield return new(
            "escapes",
            "{\"id\":\"e1\",\"s\":\"caf\\u00e9 \\\"q\\\" \\\\ \\/ \\b\\f\\n\\r\\t \\u0001 </script>\",\"Sens\\u0053tr\":\"escaped name\",\"plain\":\"\\u00e9\\u0041\",\"ctl\":\"\\u001f\"}",
            ["/s", "/SensStr", "/ctl"]);

        yield return new(
            "unicode",
            "{\"id\":\"u1\",\"emoji\":\"😀 \\ud83d\\ude00 ok\",\"clef\":\"a\\ud834\\udd1eb\",\"cjk\":\"漢字かな\",\"rtl\":\"שלום\",\"名前\":\"値\",\"plain\":\"ü\"}",
            ["/emoji", "/clef", "/cjk", "/rtl", "/名前"]);

        yield return new(
            "empty-containers",
            "{\"id\":\"c1\",\"o\":{},\"a\":[],\"s\":\"\",\"keep\":{}}",
            ["/o", "/a", "/s"]);

        yield return new(
            "nested",
            "{\"id\":\"n1\",\"deep\":{\"a\":[1,{\"b\":[true,null,{\"c\":\"x\\\"y\"}]}],\"d\":{\"e\":{\"f\":-1.5e-3,\"g\":[[[]]]}}},\"list\":[[1,2],[3,[4,[5]]],{\"k\":\"v\"}],\"after\":1}",
            ["/deep", "/list"]);

        yield return new(
            "nulls",
            "{\"id\":\"z1\",\"n\":null,\"o\":{\"x\":null,\"y\":[null]},\"a\":[null,null],\"kept\":null}",
            ["/n", "/o", "/a"]);

        yield return new(
            "numbers",
            "{\"id\":\"num1\",\"zero\":0,\"negzero\":-0,\"negzerof\":-0.0,\"exp\":1e3,\"exp2\":-2.5E-7,\"expplus\":1E+2,\"min\":-9223372036854775808,\"max\":9223372036854775807,"
            + "\"intlike\":1.0,\"trailing\":12345.000,\"tiny\":5e-324,\"huge\":1.7976931348623157e308,\"frac\":0.1,\"long53\":9007199254740993,\"neg\":-42,\"sticky\":298969000000000000000.0,\"plainnum\":7}",
            ["/sticky", "/zero", "/negzero", "/negzerof", "/exp", "/exp2", "/expplus", "/min", "/max", "/intlike", "/trailing", "/tiny", "/huge", "/frac", "/long53", "/neg"]);

        yield return new(
            "booleans",
            "{\"id\":\"b1\",\"t\":true,\"f\":false,\"plain\":true}",
            ["/t", "/f"]);

        yield return new(
            "whitespace",
            "{\n  \"id\" : \"w1\",\n  \"obj\" : { \"a\" : [ 1 , 2 ] ,\t\"s\" : \"x  y\\n\" } ,\r\n  \"arr\" : [ \"a b\" , { } , [ ] ] ,\n  \"s\" : \"text\" ,\n  \"plain\" : [ 1 ,  2 ]\n}\n",
            ["/obj", "/arr", "/s"]);

        yield return new(
            "absent-paths",
            "{\"id\":\"a1\",\"s\":\"here\"}",
            ["/missing", "/s", "/alsoMissing"]);

        yield return new("empty-object", "{}", ["/a"]);

        yield return new("only-id", "{\"id\":\"only\"}", ["/x"]);

        yield return new(
            "encrypted-first-and-last",
            "{\"first\":\"1\",\"id\":\"fl\",\"middle\":2,\"last\":[3]}",
            ["/first", "/last"]);

        yield return new("large-string", LargeString(), ["/big", "/small"]);

        yield return new("many-properties", ManyProperties(), Enumerable.Range(0, 300).Where(i => i % 2 == 0).Select(i => "/p" + i.ToString(CultureInfo.InvariantCulture)).ToArray());
    }

    private static string LargeString()
    {
        var text = new StringBuilder(1_200_000);
        var random = new Random(7);
        string[] pieces = ["a", "b", "c", "x", "y", "z", "0", "9", " ", "\\\"", "\\\\", "é", "😀", "\\n", "\\u0041"];
        while (text.Length < 1_100_000)
        {
            text.Append(pieces[random.Next(pieces.Length)]);
        }

        return "{\"id\":\"big1\",\"big\":\"" + text + "\",\"small\":\"s\",\"tail\":1}";
    }

    private static string ManyProperties()
    {
        var json = new StringBuilder("{\"id\":\"many1\"");
        for (int i = 0; i < 300; i++)
        {
            json.Append(CultureInfo.InvariantCulture, $",\"p{i}\":");
            json.Append((i % 5) switch
            {
                0 => $"\"value {i}\"",
                1 => (i * 1000).ToString(CultureInfo.InvariantCulture),
                2 => (i / 7.0).ToString("R", CultureInfo.InvariantCulture),
                3 => i % 2 == 0 ? "true" : "false",
                _ => $"{{\"n\":{i},\"a\":[{i},\"x\"]}}",
            });
        }

        return json.Append('}').ToString();
    }
}

using System.Globalization;

namespace Encryption.Custom.Performance.Tests.Documents;

/// <summary>
/// The mixed shape (performance.md): repeated blocks of about 830 bytes, each one ~400-byte encrypted string (half
/// the bytes) and fifteen small plain properties (numbers, booleans, short strings, a null, nested objects and
/// arrays). Every third block also encrypts one small value, in turn an object, a long, a boolean and a double: an
/// 8 KB document holds 10 large and 3 small encrypted values (object, long, boolean), close to the "~10 encrypted
/// values" the performance targets were derived from; from 16 KB on every type marker appears. With lookup keys
/// (<see cref="DocumentShape.Lookup"/>) every block also encrypts its SKU, SSN, price and verified flag
/// deterministically.
/// </summary>
internal static class MixedDocumentBuilder
{
    // The smallest big string worth shrinking into the space left at the end of a document.
    private const int MinimumNoteLength = 64;

    public static BenchmarkDocument Build(int size, Random random, bool lookupKeys)
    {
        var text = new DocumentText(size);
        var paths = new List<string>();
        var deterministicPaths = new List<string>();
        text.TryAppend("id", DocumentText.Quote(DocumentText.Guid(random)));
        text.TryAppend("type", DocumentText.Quote("order"));
        for (int block = 0; ; block++)
        {
            if (!AppendBlock(text, random, block, lookupKeys, paths, deterministicPaths))
            {
                break;
            }
        }

        return new BenchmarkDocument(lookupKeys ? DocumentShape.Lookup : DocumentShape.Mixed, size, text.Finish(random), [.. paths], [.. deterministicPaths]);
    }

    // False once the document is full.
    private static bool AppendBlock(DocumentText text, Random random, int block, bool lookupKeys, List<string> paths, List<string> deterministicPaths)
    {
        string b = block.ToString(CultureInfo.InvariantCulture);

        // The big encrypted string shrinks to fit the end of the document, so small sizes are not mostly padding.
        string note = "note" + b;
        int noteLength = Math.Min(random.Next(360, 441), text.RemainingFor(note) - 2);
        if (noteLength < MinimumNoteLength)
        {
            return false;
        }

        text.TryAppend(note, DocumentText.Quote(DocumentText.Text(random, noteLength, escapes: true)));
        paths.Add("/" + note);

        // Which small value this block encrypts, if any: 0 object, 1 long, 2 boolean, 3 double.
        int small = block % 3 == 0 ? (block / 3) % 4 : -1;
        (string Name, string Value, bool Encrypted, bool LookupKey)[] properties =
        [
            ("qty" + b, DocumentText.Number(random.Next(0, 100_000)), false, false),
            ("price" + b, DocumentText.Decimal(random, 10_000, 2), small == 3, lookupKeys),
            ("active" + b, random.Next(2) == 0 ? "true" : "false", false, false),
            ("sku" + b, DocumentText.Quote("SKU-" + random.Next(100_000, 999_999).ToString(CultureInfo.InvariantCulture)), false, lookupKeys),
            ("tags" + b, $"[\"{DocumentText.Text(random, 6)}\",\"{DocumentText.Text(random, 9)}\",{random.Next(100)}]", false, false),
            ("address" + b, Address(random), small == 0, false),
            ("createdAt" + b, DocumentText.Quote($"2026-{random.Next(1, 13):D2}-{random.Next(1, 29):D2}T{random.Next(24):D2}:{random.Next(60):D2}:{random.Next(60):D2}Z"), false, false),
            ("rating" + b, DocumentText.Decimal(random, 5, 1), false, false),
            ("verified" + b, random.Next(2) == 0 ? "true" : "false", small == 2, lookupKeys),
            ("lines" + b, $"[{{\"n\":1,\"q\":{random.Next(1, 20)},\"p\":{DocumentText.Decimal(random, 500, 2)}}},{{\"n\":2,\"q\":{random.Next(1, 20)},\"p\":{DocumentText.Decimal(random, 500, 2)}}}]", false, false),
            ("ssn" + b, DocumentText.Number(random.NextInt64(100_000_000, 999_999_999)), small == 1, lookupKeys),
            ("comment" + b, DocumentText.Quote(DocumentText.Text(random, random.Next(20, 41))), false, false),
            ("meta" + b, $"{{\"v\":{random.Next(1, 9)},\"src\":\"web\",\"flags\":[true,false]}}", false, false),
            ("score" + b, DocumentText.Number(random.Next(-1000, 1000)), false, false),
            ("deleted" + b, "null", false, false),
        ];

        foreach ((string name, string value, bool encrypted, bool lookupKey) in properties)
        {
            if (!text.TryAppend(name, value))
            {
                return false;
            }

            if (encrypted || lookupKey)
            {
                paths.Add("/" + name);
            }

            if (lookupKey)
            {
                deterministicPaths.Add("/" + name);
            }
        }

        return true;
    }

    private static string Address(Random random) =>
        $"{{\"street\":\"{random.Next(1, 999)} {DocumentText.Text(random, 10)}\",\"city\":\"{DocumentText.Text(random, 8)}\","
        + $"\"zip\":\"{random.Next(10_000, 99_999)}\",\"geo\":[{DocumentText.Decimal(random, 90, 2)},{DocumentText.Decimal(random, 180, 2)}]}}";
}

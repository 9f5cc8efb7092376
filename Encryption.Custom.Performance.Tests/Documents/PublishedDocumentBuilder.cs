using System.Text;

namespace Encryption.Custom.Performance.Tests.Documents;

/// <summary>
/// The published benchmark's shape: <c>id</c>, a plain <c>NonSensitive</c> string, and the encrypted
/// <c>SensitiveStr</c>, <c>SensitiveInt</c> and <c>SensitiveDict</c> (a string-to-string object that grows with the size).
/// </summary>
internal static class PublishedDocumentBuilder
{
    private const string DictionaryName = "SensitiveDict";
    private const int KeyLength = 12;

    // ,"k…k":"" and a few characters of text: the smallest last entry.
    private const int LastEntryMinimum = 1 + KeyLength + 5 + 8;

    private static readonly string[] s_paths = ["/SensitiveStr", "/SensitiveInt", "/" + DictionaryName];

    public static BenchmarkDocument Build(int size, Random random)
    {
        var text = new DocumentText(size);
        text.TryAppend("id", DocumentText.Quote(DocumentText.Guid(random)));
        text.TryAppend("NonSensitive", DocumentText.Quote(DocumentText.Guid(random)));
        text.TryAppend("SensitiveStr", DocumentText.Quote(DocumentText.Guid(random)));
        text.TryAppend("SensitiveInt", DocumentText.Number(random.Next()));

        // The dictionary is the last property and fills the document: entries while they fit, then one entry
        // whose value takes exactly what is left.
        int available = text.RemainingForLast(DictionaryName);
        var dictionary = new StringBuilder(available).Append('{');
        while (true)
        {
            string entry = Entry(dictionary.Length > 1, DocumentText.Letters(random, KeyLength), DocumentText.Text(random, random.Next(20, 61)));
            if (dictionary.Length + entry.Length + LastEntryMinimum + 1 > available)
            {
                break;
            }

            dictionary.Append(entry);
        }

        int lastValueLength = available - dictionary.Length - 1 - Entry(dictionary.Length > 1, new string('k', KeyLength), string.Empty).Length;
        dictionary.Append(Entry(dictionary.Length > 1, DocumentText.Letters(random, KeyLength), DocumentText.Text(random, lastValueLength))).Append('}');
        return new BenchmarkDocument(DocumentShape.Published, size, text.FinishWith(DictionaryName, dictionary.ToString()), s_paths);
    }

    private static string Entry(bool comma, string key, string value) => (comma ? "," : string.Empty) + "\"" + key + "\":\"" + value + "\"";
}

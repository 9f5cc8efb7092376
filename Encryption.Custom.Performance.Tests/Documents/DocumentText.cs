using System.Globalization;
using System.Text;

namespace Encryption.Custom.Performance.Tests.Documents;

/// <summary>
/// Builds one compact ASCII JSON object of an exact length: properties are added while they fit, then a plain
/// <c>"pad"</c> string fills the rest. ASCII only, so characters and UTF-8 bytes count the same.
/// </summary>
internal sealed class DocumentText
{
    // ,"pad":"" — the smallest padding property.
    private const int PadOverhead = 9;

    private static readonly string[] s_words =
    [
        "order", "customer", "shipping", "invoice", "payment", "account", "balance", "delivery", "address", "status",
        "pending", "approved", "warehouse", "region", "north", "south", "river", "market", "value", "amount",
        "contract", "renewal", "support", "ticket", "priority", "network", "device", "sensor", "reading", "battery",
        "alpha", "bravo", "delta", "omega", "quartz", "maple", "cedar", "harbor", "summit", "meadow",
    ];

    private readonly StringBuilder _text;
    private readonly int _size;
    private bool _empty = true;

    public DocumentText(int size)
    {
        _size = size;
        _text = new StringBuilder(size).Append('{');
    }

    public int Length => _text.Length;

    /// <summary>How many characters a property value may still take so that padding and the closing brace fit.</summary>
    public int RemainingFor(string name) => RemainingForLast(name) - PadOverhead;

    /// <summary>How many characters the value of a last property (no padding after it) takes to fill the document.</summary>
    public int RemainingForLast(string name) => _size - _text.Length - PropertyLength(name, 0) - 1;

    public static string Quote(string content) => "\"" + content + "\"";

    public static string Number(long value) => value.ToString(CultureInfo.InvariantCulture);

    /// <summary>A double that is not integral, so every processor writes it back exactly as generated.</summary>
    public static string Decimal(Random random, int whole, int decimals)
    {
        int scale = decimals == 1 ? 10 : 100;
        int fraction = random.Next(1, scale);
        if (fraction % 10 == 0)
        {
            fraction++;
        }

        double value = random.Next(0, whole) + (fraction / (double)scale);
        return value.ToString("R", CultureInfo.InvariantCulture);
    }

    public static string Guid(Random random)
    {
        Span<byte> bytes = stackalloc byte[16];
        random.NextBytes(bytes);
        return new Guid(bytes).ToString("D");
    }

    /// <summary>
    /// Words and spaces, exactly <paramref name="length"/> characters of JSON string content. With
    /// <paramref name="escapes"/> about one word in 250 is quoted as <c>\"word\"</c> (a quarter of 400-byte strings
    /// hold one escape, as text written by a Newtonsoft-style serializer does now and then).
    /// </summary>
    public static string Text(Random random, int length, bool escapes = false)
    {
        var text = new StringBuilder(length + 16);
        while (text.Length < length)
        {
            string word = s_words[random.Next(s_words.Length)];
            if (escapes && random.Next(250) == 0)
            {
                text.Append("\\\"").Append(word).Append("\\\"");
            }
            else
            {
                text.Append(random.Next(8) == 0 ? (random.Next(1000, 99999)).ToString(CultureInfo.InvariantCulture) : word);
            }

            text.Append(' ');
        }

        text.Length = length;

        // A cut through an escape would leave a lone backslash.
        if (length > 0 && text[length - 1] == '\\')
        {
            text[length - 1] = 'x';
        }

        return text.ToString();
    }

    public static string Letters(Random random, int length)
    {
        var letters = new StringBuilder(length);
        for (int i = 0; i < length; i++)
        {
            letters.Append((char)('a' + random.Next(26)));
        }

        return letters.ToString();
    }

    /// <summary>Appends the property when it leaves room for padding and the closing brace.</summary>
    public bool TryAppend(string name, string rawValue)
    {
        if (RemainingFor(name) < rawValue.Length)
        {
            return false;
        }

        Append(name, rawValue);
        return true;
    }

    /// <summary>Fills the document to its exact size with a plain string and closes it.</summary>
    public byte[] Finish(Random random) => FinishWith("pad", Quote(Letters(random, RemainingForLast("pad") - 2)));

    /// <summary>Appends the last property, which must fill the document exactly, and closes it.</summary>
    /// <exception cref="InvalidOperationException">The result is not exactly the requested size.</exception>
    public byte[] FinishWith(string name, string rawValue)
    {
        Append(name, rawValue);
        _text.Append('}');
        if (_text.Length != _size)
        {
            throw new InvalidOperationException($"Generated {_text.Length} bytes instead of {_size}.");
        }

        return Encoding.ASCII.GetBytes(_text.ToString());
    }

    private void Append(string name, string rawValue)
    {
        if (!_empty)
        {
            _text.Append(',');
        }

        _text.Append('"').Append(name).Append("\":").Append(rawValue);
        _empty = false;
    }

    private int PropertyLength(string name, int valueLength) => (_empty ? 0 : 1) + name.Length + 3 + valueLength;
}

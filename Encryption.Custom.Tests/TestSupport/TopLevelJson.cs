using System.Text;
using System.Text.Json;

namespace Encryption.Custom.Tests.TestSupport;

/// <summary>Reads the top-level properties of a UTF-8 JSON object as raw bytes (name token and value token, exactly as written).</summary>
public static class TopLevelJson
{
    public sealed record RawProperty(string Name, string RawName, string RawValue, JsonTokenType ValueType);

    public static List<RawProperty> ReadProperties(byte[] utf8)
    {
        var properties = new List<RawProperty>();
        var reader = new Utf8JsonReader(utf8, new JsonReaderOptions { MaxDepth = 1000 });
        reader.Read();
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            string name = reader.GetString()!;
            int nameStart = (int)reader.TokenStartIndex;
            int nameEnd = nameStart + reader.ValueSpan.Length + 2;
            reader.Read();
            int valueStart = (int)reader.TokenStartIndex;
            JsonTokenType type = reader.TokenType;
            reader.Skip();
            int valueEnd = (int)reader.BytesConsumed;
            properties.Add(new RawProperty(
                name,
                Encoding.UTF8.GetString(utf8, nameStart, nameEnd - nameStart),
                Encoding.UTF8.GetString(utf8, valueStart, valueEnd - valueStart),
                type));
        }

        return properties;
    }

    public static RawProperty Get(byte[] utf8, string name) => ReadProperties(utf8).Single(p => p.Name == name);
}

using System.Text.Json;

namespace Encryption.Custom.Cosmos.Batch;

/// <summary>Reads the top-level <c>id</c> of a JSON document without building a model.</summary>
internal static class DocumentId
{
    /// <summary>The document's string <c>id</c>, or <see langword="null"/> when it has none or is not valid JSON.</summary>
    public static string? TryRead(ReadOnlySpan<byte> document)
    {
        try
        {
            var reader = new Utf8JsonReader(document, new JsonReaderOptions { MaxDepth = 1000 });
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                return null;
            }

            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                bool isId = reader.ValueTextEquals("id"u8);
                reader.Read();
                if (isId)
                {
                    return reader.TokenType == JsonTokenType.String ? reader.GetString() : null;
                }

                reader.Skip();
            }

            return null;
        }
        catch (JsonException)
        {
            return null;
        }
    }
}

using System.Text.Json;

namespace Encryption.Custom.Cosmos.Feeds;

/// <summary>
/// Splits a feed page (<c>{"_rid":…,"Documents":[…],"_count":n}</c>) into the raw bytes of its documents, still
/// encrypted, for <see cref="DecryptableItem"/>s that decrypt one by one.
/// </summary>
internal static class FeedPageSplitter
{
    private static readonly JsonReaderOptions s_options = new() { MaxDepth = 1000 };

    /// <summary>The elements of the page's <c>Documents</c> array, each as its own UTF-8 JSON.</summary>
    /// <exception cref="EncryptionException">The page is not valid JSON or has no <c>Documents</c> array (<see cref="EncryptionErrorKind.MalformedDocument"/>).</exception>
    public static List<byte[]> Split(ReadOnlySpan<byte> page)
    {
        try
        {
            var reader = new Utf8JsonReader(page, s_options);
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                throw Malformed();
            }

            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                bool isDocuments = reader.ValueTextEquals("Documents"u8);
                reader.Read();
                if (!isDocuments)
                {
                    reader.Skip();
                    continue;
                }

                if (reader.TokenType != JsonTokenType.StartArray)
                {
                    throw Malformed();
                }

                var documents = new List<byte[]>();
                while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
                {
                    int start = (int)reader.TokenStartIndex;
                    reader.Skip();
                    documents.Add(page[start..(int)reader.BytesConsumed].ToArray());
                }

                return documents;
            }

            throw Malformed();
        }
        catch (JsonException)
        {
            // The reader's message quotes page characters: never pass it on.
            throw Malformed();
        }
    }

    private static EncryptionException Malformed() =>
        new(EncryptionErrorKind.MalformedDocument, "The feed page is not a JSON object with a 'Documents' array.");
}

// The DEK document, written and read with the library's own System.Text.Json code (never the client's
// serializer), in the shape Microsoft's Microsoft.Azure.Cosmos.Encryption.Custom stores:
//   {"id": "...", "encryptionAlgorithm": "...", "wrappedDataEncryptionKey": "<base64>",
//    "keyWrapMetadata": {"type": "...", "name": "...", "value": "...", "algorithm": "..."},
//    "createTime": <Unix seconds>, "_etag": "...", "_ts": <Unix seconds>, "_rid": "...", "_self": "..."}
// Members may come in any order; unknown members and JSON nulls are ignored. A query page is
// {"_rid": "...", "Documents": [ <documents> ], "_count": n}.
using System.Buffers;
using System.Text.Json;

namespace Encryption.Custom.Keys.Cosmos;

/// <summary>Reads and writes DEK documents and query pages of them.</summary>
internal static class DataEncryptionKeyPropertiesSerializer
{
    private static readonly JsonReaderOptions s_readerOptions = new() { MaxDepth = 16 };

    /// <summary>Writes the document; with <paramref name="includeSystemProperties"/>, also <c>_etag</c>, <c>_ts</c>, <c>_rid</c>, <c>_self</c>.</summary>
    public static void Write(Utf8JsonWriter writer, DataEncryptionKeyProperties properties, bool includeSystemProperties)
    {
        writer.WriteStartObject();
        writer.WriteString("id"u8, properties.Id);
        writer.WriteString("encryptionAlgorithm"u8, properties.EncryptionAlgorithm);
        writer.WriteBase64String("wrappedDataEncryptionKey"u8, properties.WrappedDataEncryptionKey.Span);
        EncryptionKeyWrapMetadata metadata = properties.EncryptionKeyWrapMetadata;
        writer.WriteStartObject("keyWrapMetadata"u8);
        writer.WriteString("type"u8, metadata.Type);
        if (metadata.Name is not null)
        {
            writer.WriteString("name"u8, metadata.Name);
        }

        writer.WriteString("value"u8, metadata.Value);
        if (metadata.Algorithm is not null)
        {
            writer.WriteString("algorithm"u8, metadata.Algorithm);
        }

        writer.WriteEndObject();
        if (properties.CreatedTime is { } created)
        {
            writer.WriteNumber("createTime"u8, created.ToUnixTimeSeconds());
        }

        if (includeSystemProperties)
        {
            WriteIfNotNull(writer, "_etag"u8, properties.ETag);
            if (properties.LastModified is { } modified)
            {
                writer.WriteNumber("_ts"u8, modified.ToUnixTimeSeconds());
            }

            WriteIfNotNull(writer, "_rid"u8, properties.ResourceId);
            WriteIfNotNull(writer, "_self"u8, properties.SelfLink);
        }

        writer.WriteEndObject();
    }

    /// <summary>The document as UTF-8 JSON in a new array.</summary>
    public static byte[] ToUtf8Bytes(DataEncryptionKeyProperties properties, bool includeSystemProperties)
    {
        var buffer = new ArrayBufferWriter<byte>(512);
        using (var writer = new Utf8JsonWriter(buffer))
        {
            Write(writer, properties, includeSystemProperties);
        }

        return buffer.WrittenSpan.ToArray();
    }

    /// <summary>Reads one document.</summary>
    /// <param name="utf8Json">The document.</param>
    /// <param name="expectedId">The id the caller asked for, named in errors when the document has none.</param>
    /// <exception cref="EncryptionException">The JSON is malformed or a required member is missing (<see cref="EncryptionErrorKind.KeyUnavailable"/>).</exception>
    public static DataEncryptionKeyProperties Read(ReadOnlySpan<byte> utf8Json, string? expectedId = null)
    {
        var reader = new Utf8JsonReader(utf8Json, s_readerOptions);
        try
        {
            reader.Read();
            DataEncryptionKeyProperties properties = ReadDocument(ref reader, expectedId);
            if (reader.Read())
            {
                throw KeyErrors.InvalidDocument(properties.Id, "there is more JSON after the document");
            }

            return properties;
        }
        catch (JsonException exception)
        {
            throw KeyErrors.InvalidDocument(expectedId, "it is not well-formed JSON", exception);
        }
    }

    /// <summary>Reads the <c>Documents</c> array of a query page.</summary>
    /// <exception cref="EncryptionException">The page or a document in it is malformed.</exception>
    public static List<DataEncryptionKeyProperties> ReadFeedPage(ReadOnlySpan<byte> utf8Json)
    {
        var documents = new List<DataEncryptionKeyProperties>();
        var reader = new Utf8JsonReader(utf8Json, s_readerOptions);
        try
        {
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                throw KeyErrors.InvalidDocument(null, "a query page is not a JSON object");
            }

            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                if (!reader.ValueTextEquals("Documents"u8))
                {
                    reader.Read();
                    reader.Skip();
                    continue;
                }

                reader.Read();
                if (reader.TokenType != JsonTokenType.StartArray)
                {
                    throw KeyErrors.InvalidDocument(null, "the query page's \"Documents\" is not an array");
                }

                while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
                {
                    documents.Add(ReadDocument(ref reader, expectedId: null));
                }
            }

            return documents;
        }
        catch (JsonException exception)
        {
            throw KeyErrors.InvalidDocument(null, "a query page is not well-formed JSON", exception);
        }
    }

    private static DataEncryptionKeyProperties ReadDocument(ref Utf8JsonReader reader, string? expectedId)
    {
        if (reader.TokenType != JsonTokenType.StartObject)
        {
            throw KeyErrors.InvalidDocument(expectedId, "it is not a JSON object");
        }

        string? id = null, algorithm = null, eTag = null, selfLink = null, resourceId = null;
        byte[]? wrapped = null;
        EncryptionKeyWrapMetadata? metadata = null;
        string? metadataProblem = null;
        DateTimeOffset? created = null, modified = null;
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            string name = reader.GetString()!;
            reader.Read();
            if (reader.TokenType == JsonTokenType.Null)
            {
                continue;
            }

            switch (name)
            {
                case "id": id = ReadString(ref reader, expectedId, name); break;
                case "encryptionAlgorithm": algorithm = ReadString(ref reader, id ?? expectedId, name); break;
                case "wrappedDataEncryptionKey": wrapped = ReadBase64(ref reader, id ?? expectedId, name); break;
                case "keyWrapMetadata": metadata = ReadMetadata(ref reader, out metadataProblem); break;
                case "createTime": created = ReadUnixSeconds(ref reader, id ?? expectedId, name); break;
                case "_etag": eTag = ReadString(ref reader, id ?? expectedId, name); break;
                case "_ts": modified = ReadUnixSeconds(ref reader, id ?? expectedId, name); break;
                case "_self": selfLink = ReadString(ref reader, id ?? expectedId, name); break;
                case "_rid": resourceId = ReadString(ref reader, id ?? expectedId, name); break;
                default: reader.Skip(); break;
            }
        }

        if (string.IsNullOrEmpty(id))
        {
            throw KeyErrors.InvalidDocument(expectedId, "the member \"id\" is missing");
        }

        if (string.IsNullOrEmpty(algorithm))
        {
            throw KeyErrors.InvalidDocument(id, "the member \"encryptionAlgorithm\" is missing");
        }

        if (wrapped is not { Length: > 0 })
        {
            throw KeyErrors.InvalidDocument(id, "the member \"wrappedDataEncryptionKey\" is missing or empty");
        }

        if (metadata is null)
        {
            throw KeyErrors.InvalidDocument(id, metadataProblem ?? "the member \"keyWrapMetadata\" is missing");
        }

        return new DataEncryptionKeyProperties(id, algorithm, wrapped, metadata, created, eTag, modified, selfLink, resourceId);
    }

    private static EncryptionKeyWrapMetadata? ReadMetadata(ref Utf8JsonReader reader, out string? problem)
    {
        problem = null;
        if (reader.TokenType != JsonTokenType.StartObject)
        {
            reader.Skip();
            problem = "the member \"keyWrapMetadata\" is not an object";
            return null;
        }

        string? type = null, name = null, value = null, algorithm = null;
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            string member = reader.GetString()!;
            reader.Read();
            if (reader.TokenType != JsonTokenType.String)
            {
                reader.Skip();
                continue;
            }

            switch (member)
            {
                case "type": type = reader.GetString(); break;
                case "name": name = reader.GetString(); break;
                case "value": value = reader.GetString(); break;
                case "algorithm": algorithm = reader.GetString(); break;
                default: break;
            }
        }

        if (type is null || value is null)
        {
            problem = "the member \"keyWrapMetadata\" lacks \"type\" or \"value\"";
            return null;
        }

        return new EncryptionKeyWrapMetadata(type, name, value, algorithm);
    }

    private static string ReadString(ref Utf8JsonReader reader, string? id, string member)
    {
        if (reader.TokenType != JsonTokenType.String)
        {
            throw KeyErrors.InvalidDocument(id, $"the member \"{member}\" is not a string");
        }

        return reader.GetString()!;
    }

    private static byte[] ReadBase64(ref Utf8JsonReader reader, string? id, string member)
    {
        if (reader.TokenType != JsonTokenType.String || !reader.TryGetBytesFromBase64(out byte[]? bytes))
        {
            throw KeyErrors.InvalidDocument(id, $"the member \"{member}\" is not base64");
        }

        return bytes;
    }

    private static DateTimeOffset ReadUnixSeconds(ref Utf8JsonReader reader, string? id, string member)
    {
        if (reader.TokenType == JsonTokenType.Number)
        {
            if (reader.TryGetInt64(out long seconds) && seconds >= -62135596800L && seconds <= 253402300799L)
            {
                return DateTimeOffset.FromUnixTimeSeconds(seconds);
            }

            if (reader.TryGetDouble(out double fractional) && fractional >= -62135596800d && fractional <= 253402300799d)
            {
                return DateTimeOffset.FromUnixTimeMilliseconds((long)(fractional * 1000));
            }
        }

        throw KeyErrors.InvalidDocument(id, $"the member \"{member}\" is not a Unix time in seconds");
    }

    private static void WriteIfNotNull(Utf8JsonWriter writer, ReadOnlySpan<byte> name, string? value)
    {
        if (value is not null)
        {
            writer.WriteString(name, value);
        }
    }
}

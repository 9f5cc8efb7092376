using System.Text.Json;

namespace Encryption.Custom.Cosmos.Processing;

/// <summary>
/// The encryption metadata (<c>_ei</c>) of a stored document, read without decrypting anything: which key, which
/// format and which properties are encrypted. Patch needs it to encrypt new values the way the document is.
/// </summary>
internal sealed class StoredEnvelope
{
    private static readonly JsonReaderOptions s_readerOptions = new() { MaxDepth = 1000 };

    private StoredEnvelope(long formatVersion, string dataEncryptionKeyId, string algorithm, List<string> paths)
    {
        FormatVersion = formatVersion;
        DataEncryptionKeyId = dataEncryptionKeyId;
        Algorithm = algorithm;
        Paths = paths;
    }

    /// <summary>Metadata as a write or patch leaves it (for later operations of the same batch).</summary>
    public static StoredEnvelope Create(long formatVersion, string dataEncryptionKeyId, string algorithm, List<string> paths) =>
        new(formatVersion, dataEncryptionKeyId, algorithm, paths);

    /// <summary>The format version (<c>_ef</c>).</summary>
    public long FormatVersion { get; }

    /// <summary>The data encryption key id (<c>_en</c>).</summary>
    public string DataEncryptionKeyId { get; }

    /// <summary>The algorithm (<c>_ea</c>).</summary>
    public string Algorithm { get; }

    /// <summary>The encrypted paths (<c>_ep</c>), in stored order.</summary>
    public List<string> Paths { get; }

    /// <summary>Reads the metadata of <paramref name="document"/>.</summary>
    /// <returns>The metadata, or <see langword="null"/> when the document is not encrypted (no <c>_ei</c>, or <c>null</c>).</returns>
    /// <exception cref="EncryptionException">The document or its metadata is malformed (<see cref="EncryptionErrorKind.MalformedDocument"/>).</exception>
    public static StoredEnvelope? Read(ReadOnlySpan<byte> document)
    {
        try
        {
            var reader = new Utf8JsonReader(document, s_readerOptions);
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                throw Malformed("the document is not a JSON object.");
            }

            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                bool isEnvelope = reader.ValueTextEquals(EncryptionEnvelope.PropertyNameUtf8);
                reader.Read();
                if (!isEnvelope)
                {
                    reader.Skip();
                    continue;
                }

                return reader.TokenType switch
                {
                    JsonTokenType.Null => null,
                    JsonTokenType.StartObject => ReadObject(ref reader),
                    _ => throw Malformed("'_ei' must be an object."),
                };
            }

            return null;
        }
        catch (JsonException)
        {
            // The reader's message quotes document characters: never pass it on.
            throw Malformed("the document is not valid JSON.");
        }
    }

    /// <summary>How many paths a document's <c>_ep</c> lists, or -1 when it has no readable metadata (for telemetry).</summary>
    public static int CountPaths(ReadOnlySpan<byte> document)
    {
        try
        {
            return Read(document)?.Paths.Count ?? -1;
        }
        catch (EncryptionException)
        {
            return -1;
        }
    }

    private static StoredEnvelope ReadObject(ref Utf8JsonReader reader)
    {
        long formatVersion = -1;
        string? keyId = null;
        string? algorithm = null;
        List<string>? paths = null;
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            if (reader.ValueTextEquals(EncryptionEnvelope.FormatVersionNameUtf8))
            {
                reader.Read();
                if (reader.TokenType != JsonTokenType.Number || !reader.TryGetInt64(out formatVersion))
                {
                    throw Malformed("'_ef' must be an integer.");
                }
            }
            else if (reader.ValueTextEquals(EncryptionEnvelope.KeyIdNameUtf8))
            {
                keyId = ReadString(ref reader, "'_en' must be a string.");
            }
            else if (reader.ValueTextEquals(EncryptionEnvelope.AlgorithmNameUtf8))
            {
                algorithm = ReadString(ref reader, "'_ea' must be a string.");
            }
            else if (reader.ValueTextEquals(EncryptionEnvelope.PathsNameUtf8))
            {
                reader.Read();
                if (reader.TokenType != JsonTokenType.StartArray)
                {
                    throw Malformed("'_ep' must be an array of strings.");
                }

                paths = [];
                while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
                {
                    if (reader.TokenType != JsonTokenType.String)
                    {
                        throw Malformed("'_ep' must be an array of strings.");
                    }

                    paths.Add(reader.GetString()!);
                }
            }
            else
            {
                reader.Read();
                reader.Skip();
            }
        }

        if (formatVersion < 0 || keyId is null || algorithm is null)
        {
            throw Malformed("'_ei' lacks '_ef', '_en' or '_ea'.");
        }

        return new StoredEnvelope(formatVersion, keyId, algorithm, paths ?? []);
    }

    private static string ReadString(ref Utf8JsonReader reader, string error)
    {
        reader.Read();
        if (reader.TokenType != JsonTokenType.String)
        {
            throw Malformed(error);
        }

        return reader.GetString()!;
    }

    private static EncryptionException Malformed(string reason) =>
        new(EncryptionErrorKind.MalformedDocument, "The stored document's encryption metadata cannot be read: " + reason);
}

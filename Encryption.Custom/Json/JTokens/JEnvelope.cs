using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Json.JTokens;

/// <summary>The <c>_ei</c> metadata of a parsed document (wire-format.md §3.1), read with the shared rules.</summary>
internal sealed class JEnvelope
{
    private JEnvelope(EnvelopeFormat format, string keyId, string algorithm, List<string> paths, string? encryptedData)
    {
        Format = format;
        KeyId = keyId;
        Algorithm = algorithm;
        Paths = paths;
        EncryptedData = encryptedData;
    }

    public EnvelopeFormat Format { get; }

    public string KeyId { get; }

    public string Algorithm { get; }

    /// <summary>The <c>_ep</c> paths, each "/name".</summary>
    public List<string> Paths { get; }

    /// <summary>The format 2 blob (base64), or null.</summary>
    public string? EncryptedData { get; }

    /// <summary>Reads the metadata of <paramref name="document"/>.</summary>
    /// <returns><see langword="null"/> when the document is not encrypted (no <c>_ei</c>, or <c>_ei: null</c>).</returns>
    /// <exception cref="EncryptionException">Malformed or unsupported metadata.</exception>
    public static JEnvelope? Read(JObject document)
    {
        if (!document.TryGetValue(EncryptionEnvelope.PropertyName, out JToken? value) || value.Type == JTokenType.Null)
        {
            return null;
        }

        if (value is not JObject envelope)
        {
            throw JsonErrors.CreateMalformedEnvelope("it must be an object.");
        }

        JToken? formatToken = envelope[EncryptionEnvelope.FormatVersionName];
        if (formatToken is null)
        {
            throw JsonErrors.CreateMalformedEnvelope("'_ef' is missing.");
        }

        if (formatToken.Type != JTokenType.Integer || ((JValue)formatToken).Value is not long formatVersion)
        {
            throw JsonErrors.CreateMalformedEnvelope("'_ef' must be an integer.");
        }

        // The format first: a future format is unsupported whatever the rest of its metadata looks like.
        EncryptionEnvelope.CheckFormatVersion(formatVersion);

        string keyId = ReadString(envelope, EncryptionEnvelope.KeyIdName);
        if (keyId.Length == 0)
        {
            throw JsonErrors.CreateMalformedEnvelope("'_en' must not be empty.");
        }

        string algorithm = ReadString(envelope, EncryptionEnvelope.AlgorithmName);
        EnvelopeFormat format = EncryptionEnvelope.ResolveFormat(formatVersion, algorithm);

        string? encryptedData = null;
        JToken? dataToken = envelope[EncryptionEnvelope.EncryptedDataName];
        if (dataToken is not null && dataToken.Type != JTokenType.Null)
        {
            encryptedData = dataToken.Type == JTokenType.String
                ? (string)dataToken!
                : throw JsonErrors.CreateMalformedEnvelope("'_ed' must be a string or null.");
        }

        var paths = new List<string>();
        JToken? pathsToken = envelope[EncryptionEnvelope.PathsName];
        if (pathsToken is null)
        {
            if (format == EnvelopeFormat.PerProperty)
            {
                throw JsonErrors.CreateMalformedEnvelope("'_ep' is missing.");
            }
        }
        else if (pathsToken.Type != JTokenType.Null)
        {
            ReadPaths(pathsToken, paths);
        }

        if (format == EnvelopeFormat.LegacyBlob && encryptedData is null)
        {
            throw JsonErrors.CreateMalformedEnvelope("'_ed' is missing for format version 2.");
        }

        return new JEnvelope(format, keyId, algorithm, paths, encryptedData);
    }

    /// <summary>Builds the metadata object this library writes (format 3).</summary>
    public static JObject Create(string keyId, string algorithm, List<string> paths) => new()
    {
        [EncryptionEnvelope.FormatVersionName] = EncryptionEnvelope.CurrentFormatVersion,
        [EncryptionEnvelope.KeyIdName] = keyId,
        [EncryptionEnvelope.AlgorithmName] = algorithm,
        [EncryptionEnvelope.EncryptedDataName] = null,
        [EncryptionEnvelope.PathsName] = new JArray(paths),
    };

    private static string ReadString(JObject envelope, string name)
    {
        JToken? token = envelope[name];
        if (token is null)
        {
            throw JsonErrors.CreateMalformedEnvelope($"'{name}' is missing.");
        }

        return token.Type == JTokenType.String ? (string)token! : throw JsonErrors.CreateMalformedEnvelope($"'{name}' must be a string.");
    }

    private static void ReadPaths(JToken pathsToken, List<string> paths)
    {
        if (pathsToken is not JArray array)
        {
            throw JsonErrors.CreateMalformedEnvelope("'_ep' must be an array of paths.");
        }

        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (JToken item in array)
        {
            if (item.Type != JTokenType.String)
            {
                throw JsonErrors.CreateMalformedEnvelope("'_ep' must be an array of paths.");
            }

            string path = (string)item!;
            if (path.Length < 2 || path[0] != '/' || path.IndexOf('/', 1) >= 0)
            {
                throw JsonErrors.CreateMalformedEnvelope("'_ep' must list top-level paths such as '/name'.");
            }

            if (!seen.Add(path))
            {
                throw JsonErrors.CreateMalformedEnvelope("'_ep' lists a path more than once.");
            }

            paths.Add(path);
        }
    }
}

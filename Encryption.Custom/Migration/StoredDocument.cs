using System.Text.Json;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Migration;

/// <summary>
/// One stored document as the job read it: its bytes (still encrypted), id, partition key and ETag. The partition
/// key is read from the stored form, which is what the service keys the document by.
/// </summary>
internal sealed class StoredDocument
{
    private StoredDocument(byte[] content, string id, PartitionKey partitionKey, string? etag)
    {
        Content = content;
        Id = id;
        PartitionKey = partitionKey;
        ETag = etag;
    }

    public byte[] Content { get; }

    public string Id { get; }

    public PartitionKey PartitionKey { get; }

    /// <summary>The version read; the rewrite is conditional on it.</summary>
    public string? ETag { get; }

    /// <summary>Reads the id, the partition key (from <paramref name="partitionKeyPaths"/>) and <c>_etag</c>.</summary>
    /// <param name="content">The stored document.</param>
    /// <param name="partitionKeyPaths">The container's partition key paths (one, or several for hierarchical keys).</param>
    /// <param name="etag">The ETag of the response that carried the document, else <see langword="null"/> for its <c>_etag</c>.</param>
    /// <returns>The document, or <see langword="null"/> when it has no string id (not a document the job can address).</returns>
    public static StoredDocument? Read(byte[] content, IReadOnlyList<string> partitionKeyPaths, string? etag)
    {
        using JsonDocument json = JsonDocument.Parse(content);
        JsonElement root = json.RootElement;
        if (root.ValueKind != JsonValueKind.Object
            || !root.TryGetProperty("id", out JsonElement id) || id.ValueKind != JsonValueKind.String)
        {
            return null;
        }

        if (etag is null && root.TryGetProperty("_etag", out JsonElement stored) && stored.ValueKind == JsonValueKind.String)
        {
            etag = stored.GetString();
        }

        return new StoredDocument(content, id.GetString()!, ReadPartitionKey(root, partitionKeyPaths), etag);
    }

    /// <summary>
    /// The id and partition key of a document given as bytes that must not be copied out (a decrypted document in a
    /// pooled buffer): the copy addresses the target by them.
    /// </summary>
    /// <returns>The id (<see langword="null"/> when the document has no string id) and the partition key by <paramref name="partitionKeyPaths"/>.</returns>
    /// <exception cref="JsonException">The bytes are not JSON.</exception>
    public static (string? Id, PartitionKey PartitionKey) ReadKey(ReadOnlySpan<byte> content, IReadOnlyList<string> partitionKeyPaths)
    {
        var reader = new Utf8JsonReader(content, new JsonReaderOptions { MaxDepth = EncryptionProcessorOptions.MaxAllowedDepth });
        using JsonDocument json = JsonDocument.ParseValue(ref reader);
        JsonElement root = json.RootElement;
        if (root.ValueKind != JsonValueKind.Object)
        {
            return (null, PartitionKey.None);
        }

        string? id = root.TryGetProperty("id", out JsonElement value) && value.ValueKind == JsonValueKind.String ? value.GetString() : null;
        return (id, ReadPartitionKey(root, partitionKeyPaths));
    }

    private static PartitionKey ReadPartitionKey(JsonElement root, IReadOnlyList<string> paths)
    {
        if (paths.Count == 1)
        {
            JsonElement? single = Find(root, paths[0]);
            return single switch
            {
                null => PartitionKey.None,
                { ValueKind: JsonValueKind.String } value => new PartitionKey(value.GetString()),
                { ValueKind: JsonValueKind.Number } value => new PartitionKey(value.GetDouble()),
                { ValueKind: JsonValueKind.True } => new PartitionKey(true),
                { ValueKind: JsonValueKind.False } => new PartitionKey(false),
                { ValueKind: JsonValueKind.Null } => PartitionKey.Null,
                _ => PartitionKey.None,
            };
        }

        var builder = new PartitionKeyBuilder();
        foreach (string path in paths)
        {
            JsonElement? element = Find(root, path);
            _ = element switch
            {
                null => builder.AddNoneType(),
                { ValueKind: JsonValueKind.String } value => builder.Add(value.GetString()),
                { ValueKind: JsonValueKind.Number } value => builder.Add(value.GetDouble()),
                { ValueKind: JsonValueKind.True } => builder.Add(true),
                { ValueKind: JsonValueKind.False } => builder.Add(false),
                { ValueKind: JsonValueKind.Null } => builder.AddNullValue(),
                _ => builder.AddNoneType(),
            };
        }

        return builder.Build();
    }

    // A partition key path is /a or /a/b (object members only).
    private static JsonElement? Find(JsonElement root, string path)
    {
        JsonElement current = root;
        foreach (string segment in path.Split('/', StringSplitOptions.RemoveEmptyEntries))
        {
            if (current.ValueKind != JsonValueKind.Object || !current.TryGetProperty(segment, out current))
            {
                return null;
            }
        }

        return current;
    }
}

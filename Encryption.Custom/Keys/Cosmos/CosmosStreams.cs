namespace Encryption.Custom.Keys.Cosmos;

/// <summary>
/// Reads a Cosmos DB response body whole: the one helper for the DEK container's documents and the encryption
/// container's bodies and pages (which then go to a processor).
/// </summary>
internal static class CosmosStreams
{
    /// <summary>Reads a body to its end from its current position into a new array; an absent body reads as empty.</summary>
    public static async Task<byte[]> ReadAllAsync(Stream? content, CancellationToken cancellationToken)
    {
        if (content is null)
        {
            return [];
        }

        if (content is MemoryStream memory && memory.TryGetBuffer(out ArraySegment<byte> buffer))
        {
            return buffer.AsSpan((int)memory.Position).ToArray();
        }

        using var copy = new MemoryStream();
        await content.CopyToAsync(copy, cancellationToken).ConfigureAwait(false);
        return copy.ToArray();
    }
}

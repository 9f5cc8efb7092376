namespace Encryption.Custom.Keys.Cosmos;

/// <summary>Stream helpers for the (small, not secret) DEK documents.</summary>
internal static class CosmosStreams
{
    /// <summary>Reads a response body to its end; an absent body reads as empty.</summary>
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

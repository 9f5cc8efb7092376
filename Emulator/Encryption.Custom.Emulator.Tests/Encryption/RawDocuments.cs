using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>Reads what the service stores, bypassing decryption.</summary>
public static class RawDocuments
{
    public static async Task<JObject> ReadAsync(Container raw, string id, PartitionKey partitionKey, CancellationToken cancellationToken)
    {
        using ResponseMessage response = await raw.ReadItemStreamAsync(id, partitionKey, cancellationToken: cancellationToken);
        response.EnsureSuccessStatusCode();
        using var reader = new StreamReader(response.Content);
        return JObject.Parse(await reader.ReadToEndAsync(cancellationToken));
    }
}

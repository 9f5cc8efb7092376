using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace EncryptionSample;

/// <summary>Reads a document as the service stores it (through a container without the encryptor).</summary>
internal static class Stored
{
    public static async Task<JObject> ReadAsync(Container raw, string id, string tenant)
    {
        using ResponseMessage response = await raw.ReadItemStreamAsync(id, new PartitionKey(tenant));
        response.EnsureSuccessStatusCode();
        using var reader = new StreamReader(response.Content);
        return JObject.Parse(await reader.ReadToEndAsync());
    }
}

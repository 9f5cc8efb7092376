using System.Net.Http.Json;
using System.Text.Json;

namespace Encryption.Custom.Emulator.Tests.Infrastructure;

/// <summary>
/// Splits a container's partition key range on the bundled server, through its test-only control route
/// (<c>POST /_emulator/dbs/{db}/colls/{coll}/split</c>, see <c>Emulator/README.md</c>), as Cosmos DB splits
/// ranges under growth. Another endpoint cannot be told to split: there <see cref="SplitAsync"/> does nothing
/// and returns false, and the tests that split still check that nothing is lost or duplicated.
/// </summary>
public static class PartitionSplits
{
    /// <summary>
    /// Splits the range <paramref name="rangeId"/> (by default the one holding the most documents) of
    /// <paramref name="container"/>; returns true when a range split.
    /// </summary>
    public static async Task<bool> SplitAsync(
        CosmosEndpoint endpoint, Container container, string? rangeId = null, CancellationToken cancellationToken = default)
    {
        if (!endpoint.IsBundled)
        {
            return false;
        }

        using var handler = new HttpClientHandler
        {
            // The bundled server is loopback only and its certificate is self-signed (see CosmosEndpoint).
            ServerCertificateCustomValidationCallback = static (_, _, _, _) => true,
        };
        using var http = new HttpClient(handler) { BaseAddress = endpoint.Uri };
        string path = $"_emulator/dbs/{Uri.EscapeDataString(container.Database.Id)}/colls/{Uri.EscapeDataString(container.Id)}/split";
        using HttpResponseMessage response = await http.PostAsJsonAsync(path, new { rangeId }, cancellationToken);
        string body = await response.Content.ReadAsStringAsync(cancellationToken);
        if (!response.IsSuccessStatusCode)
        {
            throw new InvalidOperationException($"The split of {container.Id} failed: {(int)response.StatusCode} {body}");
        }

        using JsonDocument answer = JsonDocument.Parse(body);
        return answer.RootElement.GetProperty("children").GetArrayLength() == 2;
    }
}

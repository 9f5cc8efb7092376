using System.Globalization;
using System.Security.Cryptography;
using System.Text;

namespace Encryption.Custom.Emulator.Tests.Infrastructure;

/// <summary>
/// Creates a container without a partition key definition (a non-partitioned container), which SDK v3 refuses to
/// create (<c>ContainerProperties</c> requires a partition key path) but older clients did and Cosmos DB still
/// serves, presenting it with its system partition key <c>/_partitionKey</c>. The request is the REST API's
/// container creation, signed with the account key as every SDK request is, with an API version from before
/// partition keys were required.
/// </summary>
public static class NonPartitionedContainers
{
    private const string LegacyApiVersion = "2018-06-18";

    /// <summary>Creates the container <paramref name="id"/> without a partition key in <paramref name="database"/>.</summary>
    public static async Task<Container> CreateAsync(CosmosEndpoint endpoint, Database database, string id, CancellationToken cancellationToken)
    {
        using var handler = new HttpClientHandler();
        if (endpoint.Uri.IsLoopback)
        {
            // Self-signed certificates on loopback endpoints only, as CosmosEndpoint.CreateClientOptions.
            handler.ServerCertificateCustomValidationCallback = static (_, _, _, _) => true;
        }

        using var http = new HttpClient(handler) { BaseAddress = endpoint.Uri };
        string resourceLink = $"dbs/{database.Id}";
        string date = DateTime.UtcNow.ToString("r", CultureInfo.InvariantCulture);
        using var request = new HttpRequestMessage(HttpMethod.Post, $"{resourceLink}/colls")
        {
            Content = new StringContent($$"""{"id":"{{id}}"}""", Encoding.UTF8, "application/json"),
        };
        request.Headers.Add("x-ms-date", date);
        request.Headers.Add("x-ms-version", LegacyApiVersion);
        request.Headers.TryAddWithoutValidation("authorization", Signature(endpoint.Key, "post", "colls", resourceLink, date));
        using HttpResponseMessage response = await http.SendAsync(request, cancellationToken);
        if (response.StatusCode != HttpStatusCode.Created)
        {
            string body = await response.Content.ReadAsStringAsync(cancellationToken);
            throw new InvalidOperationException($"Creating the non-partitioned container {id} failed: {(int)response.StatusCode} {body}");
        }

        return database.GetContainer(id);
    }

    // The master-key signature of Cosmos DB's REST API: HMAC-SHA256 over verb, resource type, resource link and date.
    private static string Signature(string key, string verb, string resourceType, string resourceLink, string date)
    {
        string payload = $"{verb}\n{resourceType}\n{resourceLink}\n{date.ToLowerInvariant()}\n\n";
        using var hmac = new HMACSHA256(Convert.FromBase64String(key));
        string signature = Convert.ToBase64String(hmac.ComputeHash(Encoding.UTF8.GetBytes(payload)));
        return Uri.EscapeDataString($"type=master&ver=1.0&sig={signature}");
    }
}

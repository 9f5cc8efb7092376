using Microsoft.Azure.Cosmos;

namespace EncryptionSample;

/// <summary>The Cosmos DB endpoint from COSMOS_ENDPOINT / COSMOS_KEY (eng/run.sh sets them for the bundled server).</summary>
internal static class SampleEndpoint
{
    public static CosmosClient CreateClient()
    {
        string endpoint = Environment.GetEnvironmentVariable("COSMOS_ENDPOINT")
            ?? throw new InvalidOperationException("COSMOS_ENDPOINT is not set; run the sample through eng/run.sh.");
        string key = Environment.GetEnvironmentVariable("COSMOS_KEY")
            ?? throw new InvalidOperationException("COSMOS_KEY is not set; run the sample through eng/run.sh.");
        var options = new CosmosClientOptions
        {
            ConnectionMode = ConnectionMode.Gateway,
            LimitToEndpoint = true,
        };

        // Local emulators use self-signed certificates: accept them for loopback endpoints only.
        if (new Uri(endpoint).IsLoopback)
        {
            options.ServerCertificateCustomValidationCallback = static (_, _, _) => true;
        }

        return new CosmosClient(endpoint, key, options);
    }
}

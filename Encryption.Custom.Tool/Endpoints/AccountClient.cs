using Azure.Identity;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tool.Endpoints;

/// <summary>
/// The one way the tool connects to a Cosmos DB account (decrypt's DEK container, migrate, status). The account key
/// comes from <c>COSMOS_KEY</c> (never from the command line, which ends up in shell history and process listings),
/// or else the tool authenticates with <see cref="DefaultAzureCredential"/>.
/// </summary>
internal static class AccountClient
{
    /// <summary>The environment variable holding the account key.</summary>
    public const string AccountKeyVariable = "COSMOS_KEY";

    /// <summary>
    /// For the endpoint tests only: the HTTP client of every client created in this asynchronous flow (a
    /// fault-injecting hop in front of the bundled endpoint, which then validates its certificate). Never set by the
    /// tool; an async-local so that tests running side by side in one process do not see each other's.
    /// </summary>
    internal static readonly AsyncLocal<Func<HttpClient>?> HttpClientFactory = new();

    /// <summary>A Gateway-mode client for <paramref name="endpoint"/> only.</summary>
    /// <exception cref="Errors.ToolException">A loopback endpoint without <c>COSMOS_KEY</c> (exit code 2).</exception>
    /// <param name="endpoint">The account endpoint (https).</param>
    /// <param name="allowBulkExecution">Whether the SDK may group concurrent point operations into bulk requests.</param>
    public static CosmosClient Create(Uri endpoint, bool allowBulkExecution = false) =>
        Create(endpoint, allowBulkExecution, Environment.GetEnvironmentVariable(AccountKeyVariable));

    /// <summary>As <see cref="Create(Uri, bool)"/>, with the account key given (<see langword="null"/>: none).</summary>
    /// <exception cref="Errors.ToolException">A loopback endpoint without an account key (exit code 2).</exception>
    internal static CosmosClient Create(Uri endpoint, bool allowBulkExecution, string? accountKey)
    {
        var options = new CosmosClientOptions
        {
            ConnectionMode = ConnectionMode.Gateway,
            LimitToEndpoint = true,
            AllowBulkExecution = allowBulkExecution,
        };

        // A loopback endpoint is a local emulator with a self-signed certificate (Microsoft's, or the bundled one):
        // nothing on another host can answer there. Any other host must present a trusted certificate.
        if (HttpClientFactory.Value is { } httpClientFactory)
        {
            options.HttpClientFactory = httpClientFactory;
        }
        else if (endpoint.IsLoopback)
        {
            options.ServerCertificateCustomValidationCallback = static (_, _, _) => true;
        }

        if (string.IsNullOrEmpty(accountKey) && endpoint.IsLoopback)
        {
            // A local emulator has no Microsoft Entra sign-in: DefaultAzureCredential would only fail later, unclearly.
            throw Errors.ToolException.Usage($"a loopback endpoint (a local emulator) needs its account key in the {AccountKeyVariable} environment variable; DefaultAzureCredential cannot sign in to it.");
        }

        return string.IsNullOrEmpty(accountKey)
            ? new CosmosClient(endpoint.AbsoluteUri, new DefaultAzureCredential(), options)
            : new CosmosClient(endpoint.AbsoluteUri, accountKey, options);
    }
}

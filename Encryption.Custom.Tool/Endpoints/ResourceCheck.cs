using System.Net;
using Encryption.Custom.Migration;
using Encryption.Custom.Tool.Errors;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tool.Endpoints;

/// <summary>
/// Checks that a database and container named on the command line exist before a command reads them, so that a
/// misspelt name is reported as that name and its option, not as a bare "404 NotFound" from somewhere in the run.
/// </summary>
internal static class ResourceCheck
{
    /// <summary>Reads <paramref name="containerId"/>'s properties (retrying transient failures).</summary>
    /// <exception cref="ToolException">The database or the container does not exist (exit code 1), naming it and its option.</exception>
    /// <exception cref="CosmosException">The service refused the read for another reason.</exception>
    public static async Task EnsureExistsAsync(CosmosClient client, string databaseId, string databaseOption, string containerId, string containerOption, CancellationToken cancellationToken)
    {
        try
        {
            await TransientFailures.RetryAsync(
                token => client.GetContainer(databaseId, containerId).ReadContainerAsync(cancellationToken: token), TimeProvider.System, cancellationToken).ConfigureAwait(false);
        }
        catch (CosmosException notFound) when (notFound.StatusCode == HttpStatusCode.NotFound)
        {
            bool databaseExists = true;
            try
            {
                await TransientFailures.RetryAsync(token => client.GetDatabase(databaseId).ReadAsync(cancellationToken: token), TimeProvider.System, cancellationToken).ConfigureAwait(false);
            }
            catch (CosmosException missing) when (missing.StatusCode == HttpStatusCode.NotFound)
            {
                databaseExists = false;
            }

            throw databaseExists
                ? ToolException.NotFound($"the container '{containerId}' ({containerOption}) does not exist in the database '{databaseId}' (the service answered 404){CreateHint(containerOption)}.", notFound)
                : ToolException.NotFound($"the database '{databaseId}' ({databaseOption}) does not exist on the endpoint (the service answered 404).", notFound);
        }
    }

    /// <summary>Reads <paramref name="databaseId"/>'s properties (retrying transient failures).</summary>
    /// <exception cref="ToolException">The database does not exist (exit code 1), naming it and its option.</exception>
    public static async Task EnsureDatabaseExistsAsync(CosmosClient client, string databaseId, string databaseOption, CancellationToken cancellationToken)
    {
        try
        {
            await TransientFailures.RetryAsync(token => client.GetDatabase(databaseId).ReadAsync(cancellationToken: token), TimeProvider.System, cancellationToken).ConfigureAwait(false);
        }
        catch (CosmosException missing) when (missing.StatusCode == HttpStatusCode.NotFound)
        {
            throw ToolException.NotFound($"the database '{databaseId}' ({databaseOption}) does not exist on the endpoint (the service answered 404).", missing);
        }
    }

    // A missing DEK container can be made by create-dek itself; say how, since a new account has none.
    private static string CreateHint(string containerOption) =>
        containerOption == "--dek-container" ? "; create-dek --create-dek-container creates a DEK container (partition key /id)" : string.Empty;
}

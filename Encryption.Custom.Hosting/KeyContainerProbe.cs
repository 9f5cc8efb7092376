using System.Net;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Hosting;

/// <summary>
/// Which configured resource is missing when the DEK container cannot be used: the database
/// (<see cref="CosmosEncryptionOptions.DatabaseId"/>) or the container (<see cref="CosmosEncryptionOptions.KeyContainerId"/>).
/// An SDK 404 says neither (its reason is empty on a missing database), so the start and the health check ask.
/// </summary>
internal static class KeyContainerProbe
{
    /// <summary>
    /// A sentence naming what is missing and the option that names it; <see langword="null"/> when both exist, or when
    /// the answer is not a definite 404 (an outage is not a missing resource; the caller's own failure stands).
    /// </summary>
    public static async Task<string?> FindMissingAsync(Container keyContainer, CancellationToken cancellationToken)
    {
        try
        {
            using (ResponseMessage container = await keyContainer.ReadContainerStreamAsync(cancellationToken: cancellationToken).ConfigureAwait(false))
            {
                if (container.StatusCode != HttpStatusCode.NotFound)
                {
                    return null;
                }
            }

            using ResponseMessage database = await keyContainer.Database.ReadStreamAsync(cancellationToken: cancellationToken).ConfigureAwait(false);
            return database.StatusCode == HttpStatusCode.NotFound
                ? MissingDatabase(keyContainer.Database.Id)
                : $"the DEK container '{keyContainer.Id}' ({nameof(CosmosEncryptionOptions)}.{nameof(CosmosEncryptionOptions.KeyContainerId)}) does not exist in the database '{keyContainer.Database.Id}'";
        }
        catch (Exception exception) when (exception is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
        {
            return null;
        }
    }

    /// <summary>The sentence for a database that does not exist.</summary>
    public static string MissingDatabase(string databaseId) =>
        $"the database '{databaseId}' ({nameof(CosmosEncryptionOptions)}.{nameof(CosmosEncryptionOptions.DatabaseId)}) does not exist";
}

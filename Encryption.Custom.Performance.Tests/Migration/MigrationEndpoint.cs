using System.Globalization;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Performance.Tests.Migration;

/// <summary>What the migration measurements share: the endpoint from the environment, its clients, progress inline.</summary>
internal static class MigrationEndpoint
{
    /// <summary>The endpoint and key from <c>COSMOS_ENDPOINT</c>/<c>COSMOS_KEY</c> (set by <c>Emulator/emulator.sh run</c>); null with a message when unset.</summary>
    public static (Uri Endpoint, string Key)? FromEnvironment()
    {
        string? endpoint = Environment.GetEnvironmentVariable("COSMOS_ENDPOINT");
        string? key = Environment.GetEnvironmentVariable("COSMOS_KEY");
        if (string.IsNullOrWhiteSpace(endpoint) || string.IsNullOrWhiteSpace(key))
        {
            Console.Error.WriteLine("COSMOS_ENDPOINT and COSMOS_KEY are not set: run through 'Emulator/emulator.sh run -- ...'.");
            return null;
        }

        return (new Uri(endpoint), key);
    }

    /// <summary>
    /// The arguments of a run against the endpoint (<c>[--documents N]</c>) and the endpoint itself; null, with the
    /// usage or what is missing on standard error, when either is wrong.
    /// </summary>
    public static (Uri Endpoint, string Key, int Documents)? FromArguments(string[] args, string name, int defaultDocuments)
    {
        int documents = defaultDocuments;
        if (args.Length == 2 && args[0] == "--documents" && int.TryParse(args[1], NumberStyles.Integer, CultureInfo.InvariantCulture, out int parsed) && parsed > 0)
        {
            documents = parsed;
        }
        else if (args.Length != 0)
        {
            Console.Error.WriteLine($"usage: {name} [--documents N]");
            return null;
        }

        return FromEnvironment() is (Uri endpoint, string key) ? (endpoint, key, documents) : null;
    }

    public static CosmosClient CreateClient(Uri endpoint, string key, bool bulk = false)
    {
        var options = new CosmosClientOptions
        {
            ConnectionMode = ConnectionMode.Gateway,
            LimitToEndpoint = true,
            AllowBulkExecution = bulk,
        };
        if (endpoint.IsLoopback)
        {
            // The bundled server and Microsoft's emulator use self-signed certificates; only loopback is trusted so.
            options.ServerCertificateCustomValidationCallback = static (_, _, _) => true;
        }

        return new CosmosClient(endpoint.ToString(), key, options);
    }
}

/// <summary>Runs the callback on the reporting thread (<see cref="Progress{T}"/> would post it to the thread pool, late).</summary>
internal sealed class InlineProgress(Action<EncryptionMigrationProgress> onReport) : IProgress<EncryptionMigrationProgress>
{
    public void Report(EncryptionMigrationProgress value) => onReport(value);
}

namespace Encryption.Custom.Emulator.Tests.Infrastructure;

/// <summary>
/// The Cosmos DB endpoint the integration tests run against, as the environment names it:
/// <c>COSMOS_ENDPOINT</c> and <c>COSMOS_KEY</c>, plus <c>COSMOS_ENDPOINT_KIND=bundled</c> when it is the
/// bundled server that <c>Emulator/emulator.sh</c> started (which cannot do everything Cosmos DB can).
/// </summary>
public sealed class CosmosEndpoint
{
    /// <summary>Environment variable with the account endpoint, e.g. <c>https://127.0.0.1:8081/</c>.</summary>
    public const string EndpointVariable = "COSMOS_ENDPOINT";

    /// <summary>Environment variable with the account key.</summary>
    public const string KeyVariable = "COSMOS_KEY";

    /// <summary>Environment variable that <c>Emulator/emulator.sh</c> sets to <see cref="BundledKind"/>.</summary>
    public const string KindVariable = "COSMOS_ENDPOINT_KIND";

    /// <summary>The value of <see cref="KindVariable"/> for the bundled server.</summary>
    public const string BundledKind = "bundled";

    private CosmosEndpoint(Uri uri, string key, bool isBundled)
    {
        Uri = uri;
        Key = key;
        IsBundled = isBundled;
    }

    /// <summary>The account endpoint.</summary>
    public Uri Uri { get; }

    /// <summary>The account key (never printed).</summary>
    public string Key { get; }

    /// <summary>True for the bundled server (where a few answers differ, e.g. request charges are constant).</summary>
    public bool IsBundled { get; }

    /// <summary>Reads the endpoint from the environment.</summary>
    /// <exception cref="InvalidOperationException">The variables are missing or the endpoint is not an absolute URI.</exception>
    public static CosmosEndpoint FromEnvironment()
    {
        string? endpoint = Environment.GetEnvironmentVariable(EndpointVariable);
        string? key = Environment.GetEnvironmentVariable(KeyVariable);
        if (string.IsNullOrWhiteSpace(endpoint) || string.IsNullOrWhiteSpace(key))
        {
            throw new InvalidOperationException(
                $"{EndpointVariable} and {KeyVariable} are not set. Run these tests through " +
                "'Emulator/emulator.sh run -- dotnet test ...' (which starts the bundled server) or set both " +
                "variables to Microsoft's emulator or an account.");
        }

        if (!Uri.TryCreate(endpoint, UriKind.Absolute, out Uri? uri))
        {
            throw new InvalidOperationException($"{EndpointVariable} is not an absolute URI: '{endpoint}'.");
        }

        bool isBundled = string.Equals(
            Environment.GetEnvironmentVariable(KindVariable), BundledKind, StringComparison.OrdinalIgnoreCase);
        return new CosmosEndpoint(uri, key, isBundled);
    }

    /// <summary>
    /// Client options every test uses: Gateway mode (the only mode the bundled server speaks), no following of
    /// the account's advertised regions, and certificate validation bypassed for loopback endpoints only (the
    /// bundled server and Microsoft's emulator use self-signed certificates).
    /// </summary>
    public CosmosClientOptions CreateClientOptions()
    {
        var options = new CosmosClientOptions
        {
            ConnectionMode = ConnectionMode.Gateway,
            LimitToEndpoint = true,
        };
        if (Uri.IsLoopback)
        {
            options.ServerCertificateCustomValidationCallback = static (_, _, _) => true;
        }

        return options;
    }

    /// <summary>Creates a client for this endpoint; <paramref name="configure"/> may adjust the options.</summary>
    public CosmosClient CreateClient(Action<CosmosClientOptions>? configure = null)
    {
        CosmosClientOptions options = CreateClientOptions();
        configure?.Invoke(options);
        return new CosmosClient(Uri.ToString(), Key, options);
    }

    /// <summary>
    /// A client whose requests all go through <paramref name="handler"/> (a test's fault injector or request counter),
    /// which then also validates the server's certificate; the handler is the test's to dispose.
    /// </summary>
    public CosmosClient CreateClientThrough(HttpMessageHandler handler, Action<CosmosClientOptions>? configure = null) =>
        CreateClient(options =>
        {
            options.ServerCertificateCustomValidationCallback = null;
            options.HttpClientFactory = () => new HttpClient(handler, disposeHandler: false);
            configure?.Invoke(options);
        });

    /// <inheritdoc/>
    public override string ToString() => $"{Uri} ({(IsBundled ? "bundled server" : "external endpoint")})";
}

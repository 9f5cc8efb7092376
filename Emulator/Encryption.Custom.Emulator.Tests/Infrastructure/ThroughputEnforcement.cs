using System.Net.Http.Json;

namespace Encryption.Custom.Emulator.Tests.Infrastructure;

/// <summary>
/// Turns the bundled endpoint's throughput enforcement on for one container (a test-only route, Emulator/README.md):
/// once a second's request units are spent it answers 429 with <c>x-ms-retry-after-ms</c>. An account enforces its
/// throughput anyway, so against one this does nothing.
/// </summary>
internal static class ThroughputEnforcement
{
    public static async Task EnableAsync(CosmosEndpoint endpoint, Container container, CancellationToken cancellationToken)
    {
        if (!endpoint.IsBundled)
        {
            return;
        }

        using var handler = new HttpClientHandler { ServerCertificateCustomValidationCallback = static (_, _, _, _) => true };
        using var http = new HttpClient(handler) { BaseAddress = endpoint.Uri };
        string path = $"_emulator/dbs/{Uri.EscapeDataString(container.Database.Id)}/colls/{Uri.EscapeDataString(container.Id)}/throughput";
        using HttpResponseMessage response = await http.PostAsJsonAsync(path, new { enforce = true }, cancellationToken);
        response.EnsureSuccessStatusCode();
    }
}

/// <summary>Counts the 429 answers on the wire (below the SDK, so its own retries are seen too).</summary>
internal sealed class ThrottleCounter(bool loopback) : DelegatingHandler(new HttpClientHandler
{
    // Self-signed certificates on loopback endpoints only, as CosmosEndpoint.CreateClientOptions.
    ServerCertificateCustomValidationCallback = loopback ? static (_, _, _, _) => true : null,
})
{
    private int _throttled;

    public int Throttled => Volatile.Read(ref _throttled);

    protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
    {
        HttpResponseMessage response = await base.SendAsync(request, cancellationToken);
        if (response.StatusCode == HttpStatusCode.TooManyRequests)
        {
            Interlocked.Increment(ref _throttled);
        }

        return response;
    }
}

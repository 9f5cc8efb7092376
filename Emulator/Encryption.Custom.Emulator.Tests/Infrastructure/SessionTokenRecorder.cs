using System.Collections.Concurrent;

namespace Encryption.Custom.Emulator.Tests.Infrastructure;

/// <summary>
/// A client request handler that remembers, per container id, the session token of the last answer about
/// that container's documents: what the container underneath a wrapper received from the service.
/// </summary>
public sealed class SessionTokenRecorder : RequestHandler
{
    private readonly ConcurrentDictionary<string, string> _lastByContainer = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<(string Container, string Token), bool> _seen = new();

    /// <inheritdoc/>
    public override async Task<ResponseMessage> SendAsync(RequestMessage request, CancellationToken cancellationToken)
    {
        ResponseMessage response = await base.SendAsync(request, cancellationToken);
        string? container = ContainerOfDocumentRequest(request.RequestUri);
        string? token = response.Headers.Session;
        if (container is not null && !string.IsNullOrEmpty(token))
        {
            _lastByContainer[container] = token;
            _seen[(container, token)] = true;
        }

        return response;
    }

    /// <summary>The token of the last answer about <paramref name="containerId"/>'s documents.</summary>
    public string Last(string containerId)
    {
        Assert.True(_lastByContainer.TryGetValue(containerId, out string? token), $"No answer about container {containerId} carried a session token.");
        return token!;
    }

    /// <summary>True when some answer about <paramref name="containerId"/>'s documents carried <paramref name="token"/>.</summary>
    public bool Received(string containerId, string token) => _seen.ContainsKey((containerId, token));

    // dbs/{db}/colls/{container}[/docs[/{id}]]: the SDK addresses documents by name here (item operations by
    // their container's link). Only answers about documents carry session tokens.
    private static string? ContainerOfDocumentRequest(Uri? uri)
    {
        if (uri is null)
        {
            return null;
        }

        string[] segments = (uri.IsAbsoluteUri ? uri.AbsolutePath : uri.OriginalString).Trim('/').Split('/');
        return segments.Length >= 4 && segments[0] == "dbs" && segments[2] == "colls"
            ? Uri.UnescapeDataString(segments[3])
            : null;
    }
}

using System.Collections.Concurrent;
using System.Net;
using System.Text;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>What a fault does to a request.</summary>
internal enum InjectedFault
{
    /// <summary>Answered 503 without reaching the endpoint.</summary>
    ServiceUnavailable,

    /// <summary>Answered 408 without reaching the endpoint.</summary>
    RequestTimeout,

    /// <summary>Answered 410 without reaching the endpoint.</summary>
    Gone,

    /// <summary>The connection is reset before the request is sent (an <see cref="IOException"/>).</summary>
    ConnectionReset,

    /// <summary>Sent to the endpoint and applied there, then answered 408: the write landed but its answer was lost.</summary>
    AppliedThenTimedOut,

    /// <summary>
    /// Sent to the endpoint, then answered with its status and headers but only the first half of its body (a
    /// connection cut mid-answer behind a proxy that had already sent the length): only for the kinds
    /// <see cref="FaultInjectingHandler.Script"/> asks for, never in the cycle of the others.
    /// </summary>
    TruncatedAnswer,
}

/// <summary>
/// A fault-injecting hop between the SDK and the endpoint on loopback: the HTTP handler of a test client (given
/// through <see cref="CosmosClientOptions.HttpClientFactory"/>) that lets most requests through to the bundled
/// endpoint and answers every <c>n</c>-th request of each chosen kind with a fault instead, cycling through
/// <see cref="InjectedFault"/>. Counts what it injected, per fault and per request kind.
/// </summary>
internal sealed class FaultInjectingHandler(int everyNth, Func<HttpRequestMessage, string?> kindOf) : DelegatingHandler(new HttpClientHandler
{
    // The bundled endpoint's certificate is self-signed; only loopback is ever reached through this handler.
    ServerCertificateCustomValidationCallback = static (request, _, _, _) => request.RequestUri!.IsLoopback,
})
{
    private readonly ConcurrentDictionary<(string Kind, InjectedFault Fault), int> _injected = new();
    private readonly ConcurrentDictionary<string, int> _counts = new();
    private int _faults;

    /// <summary>Faults injected so far, per (request kind, fault).</summary>
    public IReadOnlyDictionary<(string Kind, InjectedFault Fault), int> Injected => _injected;

    /// <summary>
    /// The most faults one kind of request gets: a step that sends many requests of a kind (the processor's start
    /// creates and reads every lease) would otherwise meet a fault on every attempt, which no service does for long.
    /// </summary>
    public const int MaxPerKind = 12;

    /// <summary>The faults the every-<c>n</c>-th cycle goes through (all but <see cref="InjectedFault.TruncatedAnswer"/>).</summary>
    public const int CycledFaults = 5;

    private readonly ConcurrentDictionary<string, ConcurrentQueue<InjectedFault>> _scripted = new();

    /// <summary>
    /// The next requests of <paramref name="kind"/> (as the kind function or <see cref="QueryPlan"/> names it) get
    /// <paramref name="faults"/>, one each in order, whatever the cycle would do; the only way to inject
    /// <see cref="InjectedFault.TruncatedAnswer"/>.
    /// </summary>
    public void Script(string kind, params InjectedFault[] faults)
    {
        ConcurrentQueue<InjectedFault> queue = _scripted.GetOrAdd(kind, _ => new());
        foreach (InjectedFault fault in faults)
        {
            queue.Enqueue(fault);
        }
    }

    /// <summary>The kind of a query-plan request (a POST to a container's feed the SDK marks as asking for the plan).</summary>
    public const string QueryPlan = "query-plan";

    /// <summary>Turns injection off (the endpoint is then reached as usual).</summary>
    public bool Enabled { get; set; } = true;

    /// <summary>The kind of a request as the SDK sends it in Gateway mode, or null for one that is never faulted.</summary>
    public static string? KindOf(HttpRequestMessage request, string leaseContainerId)
    {
        string path = request.RequestUri!.AbsolutePath;
        bool isDocument = path.Contains("/docs/", StringComparison.Ordinal);
        bool isFeed = path.EndsWith("/docs", StringComparison.Ordinal);
        bool isLease = path.Contains("/colls/" + leaseContainerId + "/", StringComparison.Ordinal);
        return (request.Method.Method, isDocument, isFeed) switch
        {
            ("PUT", true, _) => isLease ? "lease-write" : "replace",
            ("GET", true, _) => isLease ? "lease-read" : "read",
            // The job reads a container's feed only as the change feed, and posts to it only queries (and query
            // plans); the processor posts lease documents and queries to the lease container.
            ("GET", _, true) => isLease ? "lease-feed" : "change-feed",
            ("POST", _, true) => isLease ? "lease-post" : "query",
            _ => null,
        };
    }

    /// <summary>The kinds of request seen (method and kind, or the path's shape for unfaulted ones), for a failing test's message.</summary>
    public ConcurrentDictionary<string, bool> Seen { get; } = new();

    // The path with its resource ids left out: /dbs/*/colls/*/docs.
    private static string Shape(string path) => string.Join('/', path.Split('/').Select((part, i) => i % 2 == 0 ? "*" : part));

    private int InjectedInto(string kind) => _injected.Where(entry => entry.Key.Kind == kind).Sum(entry => entry.Value);

    protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
    {
        string? kind = Enabled ? kindOf(request) : null;
        string scriptedKind = IsQueryPlan(request) ? QueryPlan : kind ?? string.Empty;
        if (Enabled && _scripted.TryGetValue(scriptedKind, out ConcurrentQueue<InjectedFault>? script) && script.TryDequeue(out InjectedFault scripted))
        {
            _injected.AddOrUpdate((scriptedKind, scripted), 1, (_, n) => n + 1);
            return await InjectAsync(request, scripted, cancellationToken);
        }

        Seen.TryAdd(request.Method.Method + " " + (kind ?? Shape(request.RequestUri!.AbsolutePath)), true);
        if (kind is null || _counts.AddOrUpdate(kind, 1, (_, n) => n + 1) % everyNth != 0 || InjectedInto(kind) >= MaxPerKind)
        {
            return await base.SendAsync(request, cancellationToken);
        }

        var fault = (InjectedFault)(Interlocked.Increment(ref _faults) % CycledFaults);
        if (fault == InjectedFault.AppliedThenTimedOut && kind != "replace")
        {
            fault = InjectedFault.ServiceUnavailable;
        }

        // To the change feed processor a 410 on the feed or a lease is the SDK's partition-split signal, handled
        // inside the SDK, not a transient answer for the job: those requests get the other faults.
        if (fault == InjectedFault.Gone && (kind == "change-feed" || kind.StartsWith("lease", StringComparison.Ordinal)))
        {
            fault = InjectedFault.RequestTimeout;
        }

        _injected.AddOrUpdate((kind, fault), 1, (_, n) => n + 1);
        return await InjectAsync(request, fault, cancellationToken);
    }

    private async Task<HttpResponseMessage> InjectAsync(HttpRequestMessage request, InjectedFault fault, CancellationToken cancellationToken)
    {
        switch (fault)
        {
            case InjectedFault.ConnectionReset:
                throw new HttpRequestException("Injected: the connection was reset.", new IOException("Connection reset by peer (injected)."));
            case InjectedFault.AppliedThenTimedOut:
                using (HttpResponseMessage applied = await base.SendAsync(request, cancellationToken))
                {
                    await applied.Content.ReadAsByteArrayAsync(cancellationToken);
                }

                return Answer(request, HttpStatusCode.RequestTimeout);
            case InjectedFault.TruncatedAnswer:
                return await TruncatedAsync(await base.SendAsync(request, cancellationToken), cancellationToken);
            case InjectedFault.RequestTimeout:
                return Answer(request, HttpStatusCode.RequestTimeout);
            case InjectedFault.Gone:
                return Answer(request, HttpStatusCode.Gone);
            default:
                return Answer(request, HttpStatusCode.ServiceUnavailable);
        }
    }

    private static bool IsQueryPlan(HttpRequestMessage request) =>
        request.Headers.TryGetValues("x-ms-cosmos-is-query-plan-request", out IEnumerable<string>? values)
        && values.Any(value => string.Equals(value, "true", StringComparison.OrdinalIgnoreCase));

    // The endpoint's answer with the same status and headers and the first half of its body, its length saying so:
    // what the SDK sees when the connection is cut mid-body behind a hop that had already sent the headers.
    private static async Task<HttpResponseMessage> TruncatedAsync(HttpResponseMessage answer, CancellationToken cancellationToken)
    {
        using (answer)
        {
            byte[] body = await answer.Content.ReadAsByteArrayAsync(cancellationToken);
            var truncated = new HttpResponseMessage(answer.StatusCode)
            {
                RequestMessage = answer.RequestMessage,
                Content = new ByteArrayContent(body, 0, body.Length / 2),
            };
            foreach (KeyValuePair<string, IEnumerable<string>> header in answer.Headers)
            {
                truncated.Headers.TryAddWithoutValidation(header.Key, header.Value);
            }

            foreach (KeyValuePair<string, IEnumerable<string>> header in answer.Content.Headers.Where(h => h.Key != "Content-Length"))
            {
                truncated.Content.Headers.TryAddWithoutValidation(header.Key, header.Value);
            }

            return truncated;
        }
    }

    private static HttpResponseMessage Answer(HttpRequestMessage request, HttpStatusCode status)
    {
        var response = new HttpResponseMessage(status)
        {
            RequestMessage = request,
            Content = new StringContent($"{{\"code\":\"{status}\",\"message\":\"Injected fault.\"}}", Encoding.UTF8, "application/json"),
        };
        response.Headers.Add("x-ms-activity-id", Guid.NewGuid().ToString());
        response.Headers.Add("x-ms-request-charge", "0");
        return response;
    }
}

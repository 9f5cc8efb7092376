using System.Collections.Concurrent;
using Azure.Core;

namespace Encryption.Custom.Tests.Keys.AzureKeyVault;

/// <summary>Issues recognizable tokens (<c>test-token|{scope}|{tenant}|{n}</c>) and records what was asked for.</summary>
internal sealed class TestTokenCredential : TokenCredential
{
    public const string TokenPrefix = "test-token|";

    private int _issued;

    public ConcurrentQueue<TokenRequestContext> Requests { get; } = new();

    public int Issued => Volatile.Read(ref _issued);

    public override AccessToken GetToken(TokenRequestContext requestContext, CancellationToken cancellationToken)
    {
        Requests.Enqueue(requestContext);
        int n = Interlocked.Increment(ref _issued);
        string scope = string.Join(" ", requestContext.Scopes);
        return new AccessToken($"{TokenPrefix}{scope}|{requestContext.TenantId}|{n}", DateTimeOffset.UtcNow.AddHours(1));
    }

    public override ValueTask<AccessToken> GetTokenAsync(TokenRequestContext requestContext, CancellationToken cancellationToken) =>
        new(GetToken(requestContext, cancellationToken));
}

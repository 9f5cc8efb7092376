// Key Vault's challenge-based bearer authentication:
// 1. Until the vault has named its token scope, a request goes out without a body and without a token (so no
//    key material reaches an endpoint that has not identified itself yet).
// 2. Key Vault answers 401 with  WWW-Authenticate: Bearer authorization="https://login.../{tenant}",
//    resource="https://vault.azure.net"  (or scope="https://vault.azure.net/.default"); see KeyVaultChallenge.
// 3. The policy checks that the resource is the vault's own domain, gets a token for that scope and tenant from
//    the caller's TokenCredential, restores the body and sends the request again. Later requests to the same
//    vault (host and port) are authorized up front; a new challenge (another tenant, a revoked token) repeats
//    step 3 once. What one vault said is never used for another, so no token or key goes to a host unasked.
// Tokens are cached per scope and tenant (Azure.Core's own cache, one per pair), so a provider serving vaults in
// several tenants or clouds does not fetch a new token whenever it switches between them.
using System.Collections.Concurrent;
using Azure.Core;
using Azure.Core.Pipeline;

namespace Encryption.Custom.AzureKeyVault;

/// <summary>Bearer-token authentication that learns its scope and tenant from Key Vault's 401 challenge.</summary>
internal sealed class KeyVaultChallengeAuthenticationPolicy : BearerTokenAuthenticationPolicy
{
    private readonly TokenCredential _credential;
    private readonly bool _verifyChallengeResource;
    private readonly ConcurrentDictionary<string, KeyVaultChallenge> _challenges = new(StringComparer.OrdinalIgnoreCase);
    private readonly ConcurrentDictionary<(string Scope, string? TenantId), TokenSlot> _tokens = new();

    public KeyVaultChallengeAuthenticationPolicy(TokenCredential credential, bool verifyChallengeResource)
        : base(credential, Array.Empty<string>())
    {
        _credential = credential;
        _verifyChallengeResource = verifyChallengeResource;
    }

    /// <summary>The resource host the challenge of <paramref name="vaultUri"/>'s host and port named; null before its first challenge.</summary>
    public string? ResourceHostOf(Uri vaultUri) =>
        _challenges.TryGetValue(Authority(vaultUri.Host, vaultUri.Port), out KeyVaultChallenge? challenge) ? challenge.ResourceHost : null;

    protected override ValueTask AuthorizeRequestAsync(HttpMessage message)
    {
        if (_challenges.TryGetValue(Authority(message), out KeyVaultChallenge? challenge))
        {
            return Tokens(challenge).AuthorizeAsync(message, challenge.CreateContext(message));
        }

        HoldBackContent(message);
        return default;
    }

    protected override void AuthorizeRequest(HttpMessage message)
    {
        if (_challenges.TryGetValue(Authority(message), out KeyVaultChallenge? challenge))
        {
            Tokens(challenge).Authorize(message, challenge.CreateContext(message));
            return;
        }

        HoldBackContent(message);
    }

    protected override async ValueTask<bool> AuthorizeRequestOnChallengeAsync(HttpMessage message)
    {
        KeyVaultChallenge? challenge = AcceptChallenge(message);
        if (challenge is null)
        {
            return false;
        }

        await Tokens(challenge).AuthorizeAsync(message, challenge.CreateContext(message)).ConfigureAwait(false);
        return true;
    }

    protected override bool AuthorizeRequestOnChallenge(HttpMessage message)
    {
        KeyVaultChallenge? challenge = AcceptChallenge(message);
        if (challenge is null)
        {
            return false;
        }

        Tokens(challenge).Authorize(message, challenge.CreateContext(message));
        return true;
    }

    private static string Authority(HttpMessage message) => Authority(message.Request.Uri.Host, message.Request.Uri.Port);

    private static string Authority(string? host, int port) => $"{host}:{port}";

    private static void HoldBackContent(HttpMessage message)
    {
        if (message.Request.Content is { } content)
        {
            message.SetProperty(typeof(HeldBackContent), new HeldBackContent(content));
            message.Request.Content = null;
        }
    }

    private TokenSlot Tokens(KeyVaultChallenge challenge) =>
        _tokens.GetOrAdd(challenge.TokenKey, static (_, credential) => new TokenSlot(credential), _credential);

    private KeyVaultChallenge? AcceptChallenge(HttpMessage message)
    {
        // Whatever the challenge says, the body goes back in: either it is sent now, or the 401 is the answer.
        if (message.TryGetProperty(typeof(HeldBackContent), out object? held) && held is HeldBackContent { Content: { } content } holder)
        {
            message.Request.Content = content;
            holder.Content = null;
        }

        message.Response.Headers.TryGetValue(HttpHeader.Names.WwwAuthenticate, out string? header);
        KeyVaultChallenge? challenge = KeyVaultChallenge.Parse(header);
        if (challenge is null)
        {
            return null;
        }

        string requestHost = message.Request.Uri.Host ?? string.Empty;
        if (_verifyChallengeResource && !KeyVaultChallenge.IsResourceOfHost(challenge.ResourceHost, requestHost))
        {
            throw new InvalidOperationException(
                $"The Key Vault authentication challenge names the resource host '{challenge.ResourceHost}', which is not the domain of '{requestHost}'. " +
                "If this is a private endpoint you trust, set DisableChallengeResourceVerification.");
        }

        _challenges[Authority(message)] = challenge;
        return challenge;
    }

    /// <summary>Azure.Core's token cache for one scope and tenant (its protected authorize methods, made callable).</summary>
    private sealed class TokenSlot(TokenCredential credential) : BearerTokenAuthenticationPolicy(credential, Array.Empty<string>())
    {
        public ValueTask AuthorizeAsync(HttpMessage message, TokenRequestContext context) => AuthenticateAndAuthorizeRequestAsync(message, context);

        public void Authorize(HttpMessage message, TokenRequestContext context) => AuthenticateAndAuthorizeRequest(message, context);
    }

    /// <summary>The request body held back from the first, unauthenticated request.</summary>
    private sealed class HeldBackContent(RequestContent content)
    {
        public RequestContent? Content { get; set; } = content;
    }
}

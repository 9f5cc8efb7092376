// Key Vault's challenge-based bearer authentication:
// 1. Until the vault has named its token scope, a request goes out without a body and without a token (so no
//    key material reaches an endpoint that has not identified itself yet).
// 2. Key Vault answers 401 with  WWW-Authenticate: Bearer authorization="https://login.../{tenant}",
//    resource="https://vault.azure.net"  (or scope="https://vault.azure.net/.default").
// 3. The policy checks that the resource is the vault's own domain, gets a token for that scope and tenant from
//    the caller's TokenCredential, restores the body and sends the request again. Later requests to the same
//    vault (host and port) are authorized up front; a new challenge (another tenant, a revoked token) repeats
//    step 3 once. What one vault said is never used for another, so no token or key goes to a host unasked.
using System.Collections.Concurrent;
using Azure.Core;
using Azure.Core.Pipeline;

namespace Encryption.Custom.AzureKeyVault;

/// <summary>Bearer-token authentication that learns its scope and tenant from Key Vault's 401 challenge.</summary>
internal sealed class KeyVaultChallengeAuthenticationPolicy : BearerTokenAuthenticationPolicy
{
    private readonly bool _verifyChallengeResource;
    private readonly ConcurrentDictionary<string, ChallengeParameters> _challenges = new(StringComparer.OrdinalIgnoreCase);

    public KeyVaultChallengeAuthenticationPolicy(TokenCredential credential, bool verifyChallengeResource)
        : base(credential, Array.Empty<string>())
    {
        _verifyChallengeResource = verifyChallengeResource;
    }

    protected override ValueTask AuthorizeRequestAsync(HttpMessage message)
    {
        if (_challenges.TryGetValue(Authority(message), out ChallengeParameters? challenge))
        {
            return AuthenticateAndAuthorizeRequestAsync(message, challenge.CreateContext(message));
        }

        HoldBackContent(message);
        return default;
    }

    protected override void AuthorizeRequest(HttpMessage message)
    {
        if (_challenges.TryGetValue(Authority(message), out ChallengeParameters? challenge))
        {
            AuthenticateAndAuthorizeRequest(message, challenge.CreateContext(message));
            return;
        }

        HoldBackContent(message);
    }

    protected override async ValueTask<bool> AuthorizeRequestOnChallengeAsync(HttpMessage message)
    {
        ChallengeParameters? challenge = AcceptChallenge(message);
        if (challenge is null)
        {
            return false;
        }

        await AuthenticateAndAuthorizeRequestAsync(message, challenge.CreateContext(message)).ConfigureAwait(false);
        return true;
    }

    protected override bool AuthorizeRequestOnChallenge(HttpMessage message)
    {
        ChallengeParameters? challenge = AcceptChallenge(message);
        if (challenge is null)
        {
            return false;
        }

        AuthenticateAndAuthorizeRequest(message, challenge.CreateContext(message));
        return true;
    }

    /// <summary>Parses the <c>WWW-Authenticate</c> value; null when it is not a usable Bearer challenge.</summary>
    internal static ChallengeParameters? ParseChallenge(string? header)
    {
        const string Bearer = "Bearer ";
        if (header is null || !header.StartsWith(Bearer, StringComparison.OrdinalIgnoreCase))
        {
            return null;
        }

        string? scope = null, resource = null, authorization = null;
        foreach (string part in header[Bearer.Length..].Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            int equals = part.IndexOf('=', StringComparison.Ordinal);
            if (equals <= 0)
            {
                continue;
            }

            string name = part[..equals].Trim();
            string value = part[(equals + 1)..].Trim().Trim('"');
            if (name.Equals("scope", StringComparison.OrdinalIgnoreCase))
            {
                scope = value;
            }
            else if (name.Equals("resource", StringComparison.OrdinalIgnoreCase))
            {
                resource = value;
            }
            else if (name.Equals("authorization", StringComparison.OrdinalIgnoreCase) || name.Equals("authorization_uri", StringComparison.OrdinalIgnoreCase))
            {
                authorization = value;
            }
        }

        scope ??= resource is null ? null : resource.TrimEnd('/') + "/.default";
        if (scope is null || !Uri.TryCreate(scope, UriKind.Absolute, out Uri? scopeUri))
        {
            return null;
        }

        string? tenantId = null;
        if (Uri.TryCreate(authorization, UriKind.Absolute, out Uri? authorizationUri))
        {
            string path = authorizationUri.AbsolutePath.Trim('/');
            tenantId = path.Length == 0 ? null : path.Split('/')[0];
        }

        return new ChallengeParameters(scope, scopeUri.Host, tenantId);
    }

    /// <summary>True when the challenge's resource host is the request host or a parent domain of it.</summary>
    internal static bool IsResourceOfHost(string resourceHost, string requestHost) =>
        requestHost.Equals(resourceHost, StringComparison.OrdinalIgnoreCase)
        || requestHost.EndsWith("." + resourceHost, StringComparison.OrdinalIgnoreCase);

    private static string Authority(HttpMessage message) => $"{message.Request.Uri.Host}:{message.Request.Uri.Port}";

    private static void HoldBackContent(HttpMessage message)
    {
        if (message.Request.Content is { } content)
        {
            message.SetProperty(typeof(HeldBackContent), new HeldBackContent(content));
            message.Request.Content = null;
        }
    }

    private ChallengeParameters? AcceptChallenge(HttpMessage message)
    {
        // Whatever the challenge says, the body goes back in: either it is sent now, or the 401 is the answer.
        if (message.TryGetProperty(typeof(HeldBackContent), out object? held) && held is HeldBackContent { Content: { } content } holder)
        {
            message.Request.Content = content;
            holder.Content = null;
        }

        message.Response.Headers.TryGetValue(HttpHeader.Names.WwwAuthenticate, out string? header);
        ChallengeParameters? challenge = ParseChallenge(header);
        if (challenge is null)
        {
            return null;
        }

        string requestHost = message.Request.Uri.Host ?? string.Empty;
        if (_verifyChallengeResource && !IsResourceOfHost(challenge.ResourceHost, requestHost))
        {
            throw new InvalidOperationException(
                $"The Key Vault authentication challenge names the resource host '{challenge.ResourceHost}', which is not the domain of '{requestHost}'. " +
                "If this is a private endpoint you trust, set DisableChallengeResourceVerification.");
        }

        _challenges[Authority(message)] = challenge;
        return challenge;
    }

    /// <summary>What a challenge told us: the token scope and, when named, the tenant.</summary>
    internal sealed class ChallengeParameters(string scope, string resourceHost, string? tenantId)
    {
        private readonly string[] _scopes = [scope];

        public string Scope { get; } = scope;

        public string ResourceHost { get; } = resourceHost;

        public string? TenantId { get; } = tenantId;

        public TokenRequestContext CreateContext(HttpMessage message) =>
            new(_scopes, parentRequestId: message.Request.ClientRequestId, tenantId: TenantId);
    }

    /// <summary>The request body held back from the first, unauthenticated request.</summary>
    private sealed class HeldBackContent(RequestContent content)
    {
        public RequestContent? Content { get; set; } = content;
    }
}

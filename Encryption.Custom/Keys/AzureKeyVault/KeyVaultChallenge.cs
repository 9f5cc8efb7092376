// What Key Vault's 401 challenge tells a client: the token scope and, when named, the tenant.
//
// WWW-Authenticate may carry several challenges (RFC 7235: 1#challenge, each "scheme [token68 / #auth-param]"),
// for example  PoP nonce="…", Bearer authorization="https://login…/{tenant}", resource="https://vault.azure.net".
// The Bearer challenge is found wherever it stands; quoted values may contain commas and escaped quotes.
// As the Azure SDK's Key Vault policy does, "resource" (plus "/.default") wins over "scope", and the tenant is the
// first path segment of "authorization" (or "authorization_uri").
//
// Azure.Core has a parser for this (AuthorizationChallengeParser), but it is internal in the Azure.Core we build
// with (1.64) — Azure SDK libraries compile it in as shared source — so this is our own implementation of the
// same grammar.
using System.Text;

namespace Encryption.Custom.AzureKeyVault;

/// <summary>A parsed Key Vault Bearer challenge.</summary>
internal sealed class KeyVaultChallenge
{
    private readonly string[] _scopes;

    private KeyVaultChallenge(string scope, string resourceHost, string? tenantId)
    {
        _scopes = [scope];
        Scope = scope;
        ResourceHost = resourceHost;
        TenantId = tenantId;
    }

    /// <summary>The token scope, for example <c>https://vault.azure.net/.default</c>.</summary>
    public string Scope { get; }

    /// <summary>The host of the scope's resource, for example <c>vault.azure.net</c>.</summary>
    public string ResourceHost { get; }

    /// <summary>The tenant the token must come from; null when the challenge names none.</summary>
    public string? TenantId { get; }

    /// <summary>Identifies the token this challenge asks for: tokens are cached per scope and tenant.</summary>
    public (string Scope, string? TenantId) TokenKey => (Scope, TenantId);

    public Azure.Core.TokenRequestContext CreateContext(Azure.Core.HttpMessage message) =>
        new(_scopes, parentRequestId: message.Request.ClientRequestId, tenantId: TenantId);

    /// <summary>Parses a <c>WWW-Authenticate</c> value; null when it holds no usable Bearer challenge.</summary>
    public static KeyVaultChallenge? Parse(string? header)
    {
        if (string.IsNullOrEmpty(header))
        {
            return null;
        }

        foreach ((string scheme, Dictionary<string, string> parameters) in ReadChallenges(header))
        {
            if (!scheme.Equals("Bearer", StringComparison.OrdinalIgnoreCase))
            {
                continue;
            }

            string? scope = parameters.TryGetValue("resource", out string? resource) && resource.Length > 0
                ? resource.TrimEnd('/') + "/.default"
                : parameters.GetValueOrDefault("scope");
            if (scope is null || !Uri.TryCreate(scope, UriKind.Absolute, out Uri? scopeUri))
            {
                return null;
            }

            string? authorization = parameters.GetValueOrDefault("authorization") ?? parameters.GetValueOrDefault("authorization_uri");
            string? tenantId = null;
            if (Uri.TryCreate(authorization, UriKind.Absolute, out Uri? authorizationUri))
            {
                string path = authorizationUri.AbsolutePath.Trim('/');
                tenantId = path.Length == 0 ? null : path.Split('/')[0];
            }

            return new KeyVaultChallenge(scope, scopeUri.Host, tenantId);
        }

        return null;
    }

    /// <summary>True when the challenge's resource host is the request host or a parent domain of it.</summary>
    public static bool IsResourceOfHost(string resourceHost, string requestHost) =>
        requestHost.Equals(resourceHost, StringComparison.OrdinalIgnoreCase)
        || requestHost.EndsWith("." + resourceHost, StringComparison.OrdinalIgnoreCase);

    /// <summary>
    /// The challenges of a header, in order. An item "token = value" is a parameter of the current challenge;
    /// any other item starts a new challenge with that token as its scheme (what follows the scheme on the same
    /// item is its first parameter, or a token68 that no Key Vault challenge uses and that is skipped).
    /// </summary>
    internal static List<(string Scheme, Dictionary<string, string> Parameters)> ReadChallenges(string header)
    {
        var challenges = new List<(string, Dictionary<string, string>)>();
        Dictionary<string, string>? current = null;
        int i = 0;
        while (i < header.Length)
        {
            while (i < header.Length && (header[i] is ',' or ' ' or '\t'))
            {
                i++;
            }

            string token = ReadToken(header, ref i);
            if (token.Length == 0)
            {
                SkipItem(header, ref i);
                continue;
            }

            int afterToken = i;
            SkipSpaces(header, ref i);
            if (i < header.Length && header[i] == '=')
            {
                i++;
                SkipSpaces(header, ref i);
                string value = i < header.Length && header[i] == '"' ? ReadQuoted(header, ref i) : ReadToken(header, ref i);
                current?.TryAdd(token, value);
                SkipItem(header, ref i);
                continue;
            }

            // A scheme: a new challenge. Its first parameter (if any) follows after the spaces.
            current = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
            challenges.Add((token, current));
            if (i == afterToken)
            {
                SkipItem(header, ref i);
            }
        }

        return challenges;
    }

    private static bool IsTokenChar(char c) =>
        char.IsAsciiLetterOrDigit(c) || c is '!' or '#' or '$' or '%' or '&' or '\'' or '*' or '+' or '-' or '.' or '^' or '_' or '`' or '|' or '~';

    private static string ReadToken(string header, ref int i)
    {
        int start = i;
        while (i < header.Length && IsTokenChar(header[i]))
        {
            i++;
        }

        return header[start..i];
    }

    private static string ReadQuoted(string header, ref int i)
    {
        var value = new StringBuilder();
        i++; // opening quote
        while (i < header.Length && header[i] != '"')
        {
            if (header[i] == '\\' && i + 1 < header.Length)
            {
                i++;
            }

            value.Append(header[i]);
            i++;
        }

        i = Math.Min(i + 1, header.Length); // closing quote
        return value.ToString();
    }

    private static void SkipSpaces(string header, ref int i)
    {
        while (i < header.Length && header[i] is ' ' or '\t')
        {
            i++;
        }
    }

    /// <summary>Skips to the next comma outside a quoted string (junk after a value, a token68).</summary>
    private static void SkipItem(string header, ref int i)
    {
        while (i < header.Length && header[i] != ',')
        {
            if (header[i] == '"')
            {
                ReadQuoted(header, ref i);
                continue;
            }

            i++;
        }
    }
}

using System.Buffers.Text;
using System.Collections.Concurrent;
using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using System.Text.Json;
using System.Text.Json.Nodes;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Encryption.Custom.Tests.Keys.AzureKeyVault;

/// <summary>
/// An in-process, Key Vault-compatible HTTPS endpoint on loopback (Kestrel, self-signed certificate made in
/// memory): the bearer challenge, <c>POST /keys/{name}[/{version}]/wrapkey|unwrapkey|sign</c> and
/// <c>GET /keys/{name}[/{version}]</c> with real RSA keys (RSA-OAEP, RSA-OAEP-256, RS256), key rotation (new
/// versions), its own tenant, a configurable challenge header and answering host (private endpoints), and faults
/// a test queues: status codes, Retry-After, hangs, wrong answers, actions run just before an operation.
/// </summary>
internal sealed class FakeKeyVault : IAsyncDisposable
{
    public const string DefaultTenantId = "72f988bf-0000-0000-0000-000000000001";

    private readonly WebApplication _app;
    private readonly ConcurrentDictionary<string, List<(string Version, RSA Key)>> _keys = new(StringComparer.OrdinalIgnoreCase);
    private readonly List<(string? Operation, Fault Fault)> _faults = [];
    private readonly Lock _faultsGate = new();

    private FakeKeyVault(WebApplication app, X509Certificate2 certificate)
    {
        _app = app;
        Certificate = certificate;
    }

    /// <summary>The server certificate (trusted by the test transport by thumbprint only).</summary>
    public X509Certificate2 Certificate { get; }

    /// <summary>The vault URI, <c>https://127.0.0.1:{port}/</c>.</summary>
    public Uri VaultUri { get; private set; } = null!;

    /// <summary>The resource the challenge names; by default the vault's own origin.</summary>
    public string? ChallengeResource { get; set; }

    /// <summary>The tenant the challenge names and whose tokens the vault accepts.</summary>
    public string TenantId { get; set; } = DefaultTenantId;

    /// <summary>
    /// The whole WWW-Authenticate value, given the default Bearer challenge (several challenges in one header,
    /// other schemes first); null sends the default challenge alone.
    /// </summary>
    public Func<string, string>? ChallengeHeader { get; set; }

    /// <summary>
    /// The vault URI the answers' <c>kid</c> names; by default <see cref="VaultUri"/>. Another host models a request
    /// through a private endpoint or alias host, which Key Vault answers with the vault's own name.
    /// </summary>
    public Uri? KidVaultUri { get; set; }

    /// <summary>When true, every token is refused with a fresh challenge (a revoked identity).</summary>
    public bool RejectAllTokens { get; set; }

    /// <summary>Every request, in order.</summary>
    public ConcurrentQueue<RecordedRequest> Requests { get; } = new();

    public static async Task<FakeKeyVault> StartAsync()
    {
        X509Certificate2 certificate = CreateCertificate();
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseKestrelHttpsConfiguration();
        builder.WebHost.ConfigureKestrel(kestrel => kestrel.Listen(IPAddress.Loopback, 0, listen => listen.UseHttps(certificate)));
        WebApplication app = builder.Build();
        var vault = new FakeKeyVault(app, certificate);
        app.Run(vault.HandleAsync);
        await app.StartAsync();
        string address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.Single();
        vault.VaultUri = new Uri(new Uri(address).GetLeftPart(UriPartial.Authority) + "/");
        return vault;
    }

    /// <summary>Adds a version of an RSA key (a rotation, when the name exists); the newest version answers versionless requests.</summary>
    public Uri AddKey(string name, RSA key, string? version = null)
    {
        version ??= Guid.NewGuid().ToString("N");
        _keys.AddOrUpdate(name, _ => [(version, key)], (_, versions) => [.. versions, (version, key)]);
        return new Uri(VaultUri, $"keys/{name}/{version}");
    }

    /// <summary>The key Key Vault would use for <paramref name="keyId"/> (a versionless identifier: the newest version).</summary>
    public RSA KeyFor(string keyId)
    {
        string[] segments = new Uri(keyId).AbsolutePath.Trim('/').Split('/');
        List<(string Version, RSA Key)> versions = _keys[segments[1]];
        return segments.Length == 3 ? versions.Single(v => v.Version == segments[2]).Key : versions[^1].Key;
    }

    /// <summary>When true, every authorized key operation answers 503 (a Key Vault outage).</summary>
    public bool Unavailable { get; set; }

    /// <summary>Queues a fault for the next authorized key operation (of the given kind, or any).</summary>
    public void Enqueue(Fault fault, string? operation = null)
    {
        lock (_faultsGate)
        {
            _faults.Add((operation, fault));
        }
    }

    public int CountOperations(string operation) => Requests.Count(request => request.Operation == operation && request.Authorized);

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync();
        await _app.DisposeAsync();
        Certificate.Dispose();
        foreach ((string _, RSA key) in _keys.Values.SelectMany(versions => versions))
        {
            key.Dispose();
        }
    }

    private static X509Certificate2 CreateCertificate()
    {
        using var ecdsa = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest("CN=127.0.0.1", ecdsa, HashAlgorithmName.SHA256);
        var names = new SubjectAlternativeNameBuilder();
        names.AddIpAddress(IPAddress.Loopback);
        request.CertificateExtensions.Add(names.Build());
        using X509Certificate2 created = request.CreateSelfSigned(DateTimeOffset.UtcNow.AddMinutes(-5), DateTimeOffset.UtcNow.AddHours(1));
        return X509CertificateLoader.LoadPkcs12(created.Export(X509ContentType.Pfx), password: null);
    }

    private static Task WriteErrorAsync(HttpContext context, int status, string code, string message)
    {
        context.Response.StatusCode = status;
        context.Response.ContentType = "application/json";
        return context.Response.WriteAsync(new JsonObject { ["error"] = new JsonObject { ["code"] = code, ["message"] = message } }.ToJsonString());
    }

    private async Task HandleAsync(HttpContext context)
    {
        using var body = new MemoryStream();
        await context.Request.Body.CopyToAsync(body, context.RequestAborted);
        string[] segments = context.Request.Path.Value!.Trim('/').Split('/');
        bool isGet = context.Request.Method == "GET";
        string operation = isGet ? "get" : segments[^1];
        string? authorization = context.Request.Headers.Authorization;
        bool authorized = authorization is not null && IsValidToken(authorization);
        Requests.Enqueue(new RecordedRequest(context.Request.Method, context.Request.Path.Value!, context.Request.Query["api-version"].ToString(), operation, authorization is not null, authorized, body.Length));

        if (!authorized || RejectAllTokens)
        {
            string resource = ChallengeResource ?? VaultUri.GetLeftPart(UriPartial.Authority);
            string bearer = $"Bearer authorization=\"https://login.test/{TenantId}\", resource=\"{resource}\"";
            context.Response.Headers.WWWAuthenticate = ChallengeHeader is null ? bearer : ChallengeHeader(bearer);
            await WriteErrorAsync(context, 401, "Unauthorized", "AKV10000: Request is missing a Bearer or PoP token.");
            return;
        }

        bool knownRoute = isGet
            ? segments.Length is 2 or 3 && segments[0] == "keys"
            : context.Request.Method == "POST" && segments.Length is 3 or 4 && segments[0] == "keys" && operation is "wrapkey" or "unwrapkey" or "sign";
        if (!knownRoute)
        {
            await WriteErrorAsync(context, 400, "BadParameter", "Unknown operation.");
            return;
        }

        if (Unavailable)
        {
            await WriteErrorAsync(context, 503, "ServiceUnavailable", "Injected outage.");
            return;
        }

        Fault? fault = TakeFault(operation);
        if (fault is not null && await fault.ApplyAsync(context))
        {
            return;
        }

        string name = segments[1];
        string? requestedVersion = isGet ? (segments.Length == 3 ? segments[2] : null) : (segments.Length == 4 ? segments[2] : null);
        if (!_keys.TryGetValue(name, out List<(string Version, RSA Key)>? versions)
            || versions.LastOrDefault(v => requestedVersion is null || v.Version == requestedVersion) is not { Key: not null } entry)
        {
            await WriteErrorAsync(context, 404, "KeyNotFound", $"A key with (name/id) {name} was not found in this key vault.");
            return;
        }

        string kid = new Uri(KidVaultUri ?? VaultUri, $"keys/{name}/{entry.Version}").AbsoluteUri;
        if (isGet)
        {
            RSAParameters publicPart = entry.Key.ExportParameters(includePrivateParameters: false);
            var bundle = new JsonObject
            {
                ["key"] = new JsonObject
                {
                    ["kid"] = kid,
                    ["kty"] = "RSA",
                    ["key_ops"] = new JsonArray("encrypt", "decrypt", "sign", "verify", "wrapKey", "unwrapKey"),
                    ["n"] = Base64Url.EncodeToString(publicPart.Modulus),
                    ["e"] = Base64Url.EncodeToString(publicPart.Exponent),
                },
                ["attributes"] = new JsonObject { ["enabled"] = true },
            };
            context.Response.ContentType = "application/json; charset=utf-8";
            await context.Response.WriteAsync(bundle.ToJsonString());
            return;
        }

        JsonObject request = JsonNode.Parse(body.ToArray())!.AsObject();
        string? algorithm = request["alg"]?.GetValue<string>();
        if (operation == "sign")
        {
            if (algorithm != "RS256")
            {
                await WriteErrorAsync(context, 400, "BadParameter", "Unsupported signature algorithm.");
                return;
            }

            byte[] digest = Base64Url.DecodeFromChars(request["value"]!.GetValue<string>());
            byte[] signed = entry.Key.SignHash(digest, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
            if (fault is not null)
            {
                (kid, signed) = fault.Tamper(kid, signed, VaultUri);
            }

            context.Response.ContentType = "application/json; charset=utf-8";
            await context.Response.WriteAsync(new JsonObject { ["kid"] = kid, ["value"] = Base64Url.EncodeToString(signed) }.ToJsonString());
            return;
        }

        RSAEncryptionPadding? padding = algorithm switch
        {
            "RSA-OAEP" => RSAEncryptionPadding.OaepSHA1,
            "RSA-OAEP-256" => RSAEncryptionPadding.OaepSHA256,
            _ => null,
        };
        if (padding is null)
        {
            await WriteErrorAsync(context, 400, "BadParameter", "Unsupported algorithm.");
            return;
        }

        byte[] value = Base64Url.DecodeFromChars(request["value"]!.GetValue<string>());
        byte[] result;
        try
        {
            result = operation == "wrapkey" ? entry.Key.Encrypt(value, padding) : entry.Key.Decrypt(value, padding);
        }
        catch (CryptographicException)
        {
            await WriteErrorAsync(context, 400, "BadParameter", "The parameter is incorrect.");
            return;
        }

        if (fault is not null)
        {
            (kid, result) = fault.Tamper(kid, result, VaultUri);
        }

        context.Response.ContentType = "application/json; charset=utf-8";
        await context.Response.WriteAsync(new JsonObject { ["kid"] = kid, ["value"] = Base64Url.EncodeToString(result) }.ToJsonString());
    }

    private Fault? TakeFault(string operation)
    {
        lock (_faultsGate)
        {
            int index = _faults.FindIndex(entry => entry.Operation is null || entry.Operation == operation);
            if (index < 0)
            {
                return null;
            }

            Fault fault = _faults[index].Fault;
            _faults.RemoveAt(index);
            return fault;
        }
    }

    private bool IsValidToken(string authorization)
    {
        string scope = (ChallengeResource ?? VaultUri.GetLeftPart(UriPartial.Authority)) + "/.default";
        return authorization.StartsWith($"Bearer {TestTokenCredential.TokenPrefix}{scope}|{TenantId}|", StringComparison.Ordinal);
    }

    /// <summary>One request as the server saw it.</summary>
    public sealed record RecordedRequest(string Method, string Path, string ApiVersion, string Operation, bool HadAuthorization, bool Authorized, long BodyLength);

    /// <summary>A fault for one authorized key operation.</summary>
    public abstract class Fault
    {
        public static Fault Status(int status, string code, string? retryAfter = null) => new StatusFault(status, code, retryAfter);

        public static Fault Hang() => new HangFault();

        /// <summary>Runs <paramref name="action"/> just before the operation (for example a key rotation racing it), then lets it run.</summary>
        public static Fault Before(Action action) => new BeforeFault(action);

        /// <summary>Answers with another key of <paramref name="length"/> bytes (unwrap) or another blob (wrap).</summary>
        public static Fault WrongValue(int length = 32) => new TamperFault((kid, _, _) => (kid, RandomNumberGenerator.GetBytes(length)));

        /// <summary>Answers as if another key had done the operation.</summary>
        public static Fault WrongKeyId() => new TamperFault((_, value, vault) => (new Uri(vault, "keys/other/0123").AbsoluteUri, value));

        /// <summary>Writes a response instead of the operation; false lets the operation run (and maybe be tampered).</summary>
        public virtual Task<bool> ApplyAsync(HttpContext context) => Task.FromResult(false);

        public virtual (string Kid, byte[] Value) Tamper(string kid, byte[] value, Uri vault) => (kid, value);

        private sealed class StatusFault(int status, string code, string? retryAfter) : Fault
        {
            public override async Task<bool> ApplyAsync(HttpContext context)
            {
                if (retryAfter is not null)
                {
                    context.Response.Headers.RetryAfter = retryAfter;
                }

                await WriteErrorAsync(context, status, code, $"Injected {status}.");
                return true;
            }
        }

        private sealed class HangFault : Fault
        {
            public override async Task<bool> ApplyAsync(HttpContext context)
            {
                // Until the client gives up (its network timeout) or a generous bound passes.
                try
                {
                    await Task.Delay(TimeSpan.FromSeconds(30), context.RequestAborted);
                }
                catch (OperationCanceledException)
                {
                }

                return true;
            }
        }

        private sealed class BeforeFault(Action action) : Fault
        {
            public override Task<bool> ApplyAsync(HttpContext context)
            {
                action();
                return Task.FromResult(false);
            }
        }

        private sealed class TamperFault(Func<string, byte[], Uri, (string, byte[])> tamper) : Fault
        {
            public override (string Kid, byte[] Value) Tamper(string kid, byte[] value, Uri vault) => tamper(kid, value, vault);
        }
    }
}

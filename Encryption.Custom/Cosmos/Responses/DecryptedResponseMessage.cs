using System.Net;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Responses;

/// <summary>
/// A service response whose body was replaced by its decrypted form; status, headers and diagnostics are the
/// original's. A plain <see cref="ResponseMessage"/> subclass, so the client's response factory deserializes
/// <see cref="Content"/> (a query response would otherwise be read from its still-encrypted elements).
/// </summary>
internal sealed class DecryptedResponseMessage : ResponseMessage
{
    private readonly ResponseMessage _inner;
    private Stream? _content;
    private bool _disposed;

    public DecryptedResponseMessage(ResponseMessage inner, Stream content)
    {
        _inner = inner;
        _content = content;
    }

    public override Stream Content
    {
        get => _content!;
        set => _content = value;
    }

    public override string ContinuationToken => _inner.ContinuationToken;

    public override CosmosDiagnostics Diagnostics
    {
        get => _inner.Diagnostics;
        set => _inner.Diagnostics = value;
    }

    public override string ErrorMessage => _inner.ErrorMessage;

    public override Headers Headers => _inner.Headers;

    public override RequestMessage RequestMessage => _inner.RequestMessage;

    public override HttpStatusCode StatusCode => _inner.StatusCode;

    public override bool IsSuccessStatusCode => _inner.IsSuccessStatusCode;

    public override ResponseMessage EnsureSuccessStatusCode()
    {
        _inner.EnsureSuccessStatusCode();
        return this;
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing && !_disposed)
        {
            _disposed = true;
            _content?.Dispose();
            _content = null;
            _inner.Dispose();
        }

        base.Dispose(disposing);
    }
}

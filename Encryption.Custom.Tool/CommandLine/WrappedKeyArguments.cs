namespace Encryption.Custom.Tool.CommandLine;

/// <summary>
/// Where a wrapped data encryption key comes from: its DEK document (a file, or the DEK container on an endpoint)
/// and its key-encryption key (a local key file, or Azure Key Vault). The parser guarantees one of each.
/// </summary>
internal sealed class WrappedKeyArguments
{
    /// <summary>The DEK document file (<c>--dek-file</c>), or <see langword="null"/> when it is read from <see cref="Endpoint"/>.</summary>
    public string? DekFile { get; init; }

    /// <summary>The account endpoint (<c>--dek-endpoint</c>), with <see cref="Database"/> and <see cref="Container"/>.</summary>
    public Uri? Endpoint { get; init; }

    public string? Database { get; init; }

    public string? Container { get; init; }

    /// <summary>The local key-encryption key file (<c>--kek-file</c>), or <see langword="null"/> for Key Vault.</summary>
    public string? KekFile { get; init; }
}

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>The DEK container and key-encryption keys of create-dek, list-deks and rewrap-dek; the parser has checked every value.</summary>
internal sealed record DekArguments
{
    public required Uri Endpoint { get; init; }

    public required string Database { get; init; }

    public required string Container { get; init; }

    /// <summary>The DEK to create or rewrap (<see langword="null"/> for list-deks).</summary>
    public string? DekId { get; init; }

    /// <summary>The DEK's encryption algorithm (create-dek).</summary>
    public string Algorithm { get; init; } = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

    /// <summary>The key-encryption key to wrap with (create-dek, rewrap-dek).</summary>
    public EncryptionKeyWrapMetadata? WrapMetadata { get; init; }

    /// <summary>The local key-encryption key file, or <see langword="null"/> for Key Vault.</summary>
    public string? KekFile { get; init; }

    /// <summary>rewrap-dek: the local file of the new key-encryption key, when it is not <see cref="KekFile"/>.</summary>
    public string? NewKekFile { get; init; }

    /// <summary>create-dek with --create-dek-container: create the DEK container (partition key /id) when it does not exist.</summary>
    public bool CreateContainer { get; init; }
}

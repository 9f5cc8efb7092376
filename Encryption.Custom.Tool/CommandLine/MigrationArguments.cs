using Encryption.Custom.Json;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>The container and target of <c>migrate</c> and <c>status</c>; the parser has checked every value.</summary>
internal sealed class MigrationArguments
{
    public required Uri Endpoint { get; init; }

    public required string Database { get; init; }

    public required string Container { get; init; }

    /// <summary>The target policy's DEK, or <see langword="null"/> for "no encryption".</summary>
    public string? TargetDekId { get; init; }

    /// <summary>The target policy's paths (empty without <see cref="TargetDekId"/>).</summary>
    public IReadOnlyList<string> TargetPaths { get; init; } = [];

    /// <summary>The target paths encrypted deterministically (also in <see cref="TargetPaths"/>).</summary>
    public IReadOnlyList<string> DeterministicPaths { get; init; } = [];

    // migrate only.
    /// <summary>Paths the operator allows the run to decrypt.</summary>
    public IReadOnlyList<string> DecryptPaths { get; init; } = [];

    /// <summary>Paths whose encryption type the operator allows the run to change.</summary>
    public IReadOnlyList<string> ChangeTypePaths { get; init; } = [];

    public bool DryRun { get; init; }

    /// <summary>The container to copy into (same database), or <see langword="null"/> to migrate in place.</summary>
    public string? TargetContainer { get; init; }

    public string? FailuresFile { get; init; }

    public string? LeaseContainer { get; init; }

    public string? DekDatabase { get; init; }

    public string? DekContainer { get; init; }

    /// <summary>The local key-encryption key file, or <see langword="null"/> for Key Vault.</summary>
    public string? KekFile { get; init; }

    public IReadOnlyList<string> AcceptedDekIds { get; init; } = [];

    public double? RequestUnitsPerSecond { get; init; }

    public int? Parallelism { get; init; }

    public int? BatchSize { get; init; }

    /// <summary>The job's <see cref="EncryptionMigrationOptions.LeaseExpirationInterval"/>, or <see langword="null"/> for its default.</summary>
    public TimeSpan? LeaseExpiration { get; init; }

    public bool Bulk { get; init; }

    public string? JobName { get; init; }

    public JsonProcessor Processor { get; init; } = JsonProcessor.Stream;
}

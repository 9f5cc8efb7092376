namespace Encryption.Custom.Json.Values;

/// <summary>
/// Where a value encrypted on its own is stored: its path (the errors name it; <c>/id</c> selects the id's stored
/// alphabet), the path's deterministic IV prefix (empty for a randomized path) and the key id the errors name.
/// </summary>
internal readonly ref struct ValueSite
{
    /// <summary>The path, as the policy writes it (<c>/ssn</c>).</summary>
    public readonly string Path;

    /// <summary>The IV context prefix of a deterministic path (<see cref="WireFormat.DeterministicIvContext.CreatePathPrefix"/>); empty for a randomized one.</summary>
    public readonly ReadOnlySpan<byte> Deterministic;

    /// <summary>The key id the errors name.</summary>
    public readonly string KeyId;

    public ValueSite(string path, ReadOnlySpan<byte> deterministic, string keyId)
    {
        Path = path;
        Deterministic = deterministic;
        KeyId = keyId;
    }

    /// <summary>Whether the path is encrypted deterministically.</summary>
    public bool IsDeterministic => !Deterministic.IsEmpty;
}

namespace Encryption.Custom;

/// <summary>
/// Names the key-encryption key (KEK) that wraps a data encryption key, and how: stored next to the wrapped key
/// in the DEK document as <c>{"type","name","value","algorithm"}</c>.
/// </summary>
/// <remarks>
/// Everything here is stored in the database in clear text: it must identify a key, never contain key material
/// or credentials.
/// </remarks>
public sealed class EncryptionKeyWrapMetadata : IEquatable<EncryptionKeyWrapMetadata>
{
    /// <summary>The <see cref="Type"/> of metadata created by the one- and two-argument constructors.</summary>
    public const string CustomType = "custom";

    /// <summary>Creates metadata for a custom provider, with <see cref="Type"/> <c>custom</c>.</summary>
    /// <param name="value">Identifies the key-encryption key for the provider.</param>
    /// <exception cref="ArgumentNullException"><paramref name="value"/> is null.</exception>
    public EncryptionKeyWrapMetadata(string value)
        : this(CustomType, name: null, value, algorithm: null)
    {
    }

    /// <summary>Creates metadata for a custom provider, with <see cref="Type"/> <c>custom</c>.</summary>
    /// <param name="name">A name for the key-encryption key.</param>
    /// <param name="value">Identifies the key-encryption key for the provider.</param>
    /// <exception cref="ArgumentNullException"><paramref name="value"/> is null.</exception>
    public EncryptionKeyWrapMetadata(string? name, string value)
        : this(CustomType, name, value, algorithm: null)
    {
    }

    /// <summary>Creates metadata with every field given.</summary>
    /// <param name="type">Which kind of provider understands this metadata (for example <c>akv</c> or <c>local</c>).</param>
    /// <param name="name">A name for the key-encryption key, or null.</param>
    /// <param name="value">Identifies the key-encryption key (for example a Key Vault key identifier URI).</param>
    /// <param name="algorithm">The wrap algorithm (for example <c>RSA-OAEP-256</c>), or null.</param>
    /// <exception cref="ArgumentNullException"><paramref name="type"/> or <paramref name="value"/> is null.</exception>
    public EncryptionKeyWrapMetadata(string type, string? name, string value, string? algorithm)
    {
        ArgumentNullException.ThrowIfNull(type);
        ArgumentNullException.ThrowIfNull(value);
        Type = type;
        Name = name;
        Value = value;
        Algorithm = algorithm;
    }

    /// <summary>Which kind of provider understands this metadata (JSON <c>type</c>).</summary>
    public string Type { get; }

    /// <summary>A name for the key-encryption key (JSON <c>name</c>); null when the document has none.</summary>
    public string? Name { get; }

    /// <summary>Identifies the key-encryption key (JSON <c>value</c>).</summary>
    public string Value { get; }

    /// <summary>The wrap algorithm (JSON <c>algorithm</c>); null when the document has none.</summary>
    public string? Algorithm { get; }

    /// <inheritdoc/>
    public bool Equals(EncryptionKeyWrapMetadata? other) =>
        other is not null
        && string.Equals(Type, other.Type, StringComparison.Ordinal)
        && string.Equals(Name, other.Name, StringComparison.Ordinal)
        && string.Equals(Value, other.Value, StringComparison.Ordinal)
        && string.Equals(Algorithm, other.Algorithm, StringComparison.Ordinal);

    /// <inheritdoc/>
    public override bool Equals(object? obj) => Equals(obj as EncryptionKeyWrapMetadata);

    /// <inheritdoc/>
    public override int GetHashCode() => HashCode.Combine(
        StringComparer.Ordinal.GetHashCode(Type),
        Name is null ? 0 : StringComparer.Ordinal.GetHashCode(Name),
        StringComparer.Ordinal.GetHashCode(Value),
        Algorithm is null ? 0 : StringComparer.Ordinal.GetHashCode(Algorithm));

    /// <inheritdoc/>
    public override string ToString() => $"type={Type}, name={Name}, value={Value}, algorithm={Algorithm}";
}

namespace Encryption.Custom.Cosmos.Queries;

/// <summary>Parameter name → the names standing for its ciphertext under each accepted key (current key first).</summary>
internal sealed class EncryptedQueryParameters : Dictionary<string, string[]>
{
    public EncryptedQueryParameters()
        : base(StringComparer.Ordinal)
    {
    }
}

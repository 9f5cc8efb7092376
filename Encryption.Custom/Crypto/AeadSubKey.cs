namespace Encryption.Custom.Crypto;

/// <summary>The three keys derived from a DEK's root key (wire-format.md §1).</summary>
internal enum AeadSubKey
{
    /// <summary>The AES-256-CBC key.</summary>
    Encryption = 0,

    /// <summary>The HMAC-SHA256 key for the authentication tag.</summary>
    Mac = 1,

    /// <summary>The HMAC-SHA256 key for deterministic IVs.</summary>
    Iv = 2,
}

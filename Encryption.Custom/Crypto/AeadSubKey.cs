// Sub-keys of AEAD_AES_256_CBC_HMAC_SHA256 (wire-format.md §1), 32 bytes each, derived in this order.
namespace Encryption.Custom.Crypto;

/// <summary>The three keys derived from a DEK's root key (wire-format.md §1).</summary>
internal enum AeadSubKey
{
    /// <summary>The AES-256-CBC key.</summary>
    Encryption = 0,

    /// <summary>The HMAC-SHA256 key for the authentication tag.</summary>
    Mac = 1,

    /// <summary>The HMAC-SHA256 key for deterministic IVs (this library's label, the same for both label sets).</summary>
    Iv = 2,
}

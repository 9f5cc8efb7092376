namespace Encryption.Custom;

/// <summary>Names of the key-wrap algorithms the library's providers understand (the <c>algorithm</c> of the metadata).</summary>
public static class KeyWrapAlgorithm
{
    /// <summary>RSAES-OAEP with SHA-1 and MGF1-SHA-1 (RFC 8017), as Key Vault's <c>RSA-OAEP</c>.</summary>
    public const string RsaOaep = "RSA-OAEP";

    /// <summary>RSAES-OAEP with SHA-256 and MGF1-SHA-256 (RFC 8017), as Key Vault's <c>RSA-OAEP-256</c>.</summary>
    public const string RsaOaep256 = "RSA-OAEP-256";

    /// <summary>AES key wrap (RFC 3394) with a 128-, 192- or 256-bit local key; the key to wrap is a multiple of 8 bytes.</summary>
    public const string AesKeyWrap = "AES-KW";

    /// <summary>AES key wrap with padding (RFC 5649) with a 128-, 192- or 256-bit local key.</summary>
    public const string AesKeyWrapPadded = "AES-KWP";
}

// IV choice of AEAD_AES_256_CBC_HMAC_SHA256 (wire-format.md §1): the IV fills cell bytes 33..49.
namespace Encryption.Custom.Crypto;

/// <summary>How the AEAD chooses the IV of a cell.</summary>
internal enum AeadIvMode
{
    /// <summary>16 bytes from a CSPRNG (what format 3 writes).</summary>
    Randomized = 0,

    /// <summary>The first 16 bytes of HMAC-SHA256(ivKey, plaintext): equal plaintexts give equal cells.</summary>
    Deterministic = 1,
}

// Sub-keys of a data encryption key (wire-format.md §1 and "Bound cells"), 32 bytes each.
// The first three are the format-3 keys, derived once when the key is created and stored next to the root key;
// the last three belong to the extended format and are derived from the root key when a context first needs them.
namespace Encryption.Custom.Crypto;

/// <summary>The keys derived from a DEK's root key (wire-format.md §1, "Bound cells").</summary>
internal enum AeadSubKey
{
    /// <summary>The AES-256-CBC key (the same for format-3 cells and bound cells).</summary>
    Encryption = 0,

    /// <summary>The HMAC-SHA256 key for the authentication tag of a format-3 cell.</summary>
    Mac = 1,

    /// <summary>The HMAC-SHA256 key for deterministic IVs (this library's label, the same for both label sets).</summary>
    Iv = 2,

    /// <summary>The HMAC-SHA256 key for the tag of a bound cell (cell version 2; this library's label).</summary>
    BoundMac = 3,

    /// <summary>Reserved for the document commitment of the extended format (this library's label).</summary>
    Commitment = 4,

    /// <summary>Reserved for query tokens of the extended format (this library's label).</summary>
    QueryToken = 5,
}

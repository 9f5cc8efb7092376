// What a bound-cell decryption found (wire-format.md "Bound cells"). A bound cell verifies only under the exact
// associated data it was written with, so a tag that fails cannot tell "moved from another document, path or
// container" from "corrupted": both are one status, and the message says so.
namespace Encryption.Custom.Crypto;

/// <summary>The outcome of authenticating and decrypting a bound cell.</summary>
internal enum AeadCellCheck
{
    /// <summary>Authentic under the given binding; the plaintext was written.</summary>
    Valid = 0,

    /// <summary>Not a cell: wrong length, unknown version byte, or bad padding behind a valid tag.</summary>
    Malformed,

    /// <summary>A well-formed format-3 (version 0x01) cell where a bound cell is required.</summary>
    NotBound,

    /// <summary>A well-formed bound cell whose tag does not verify here: it belongs elsewhere, or it is corrupted.</summary>
    BindingMismatch,
}

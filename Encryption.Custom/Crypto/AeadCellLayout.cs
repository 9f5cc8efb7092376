// AEAD_AES_256_CBC_HMAC_SHA256 cell layout (wire-format.md §1):
//   offset  0  version     1 byte   0x01
//   offset  1  tag        32 bytes  HMAC-SHA256(macKey, 0x01 ‖ IV ‖ C ‖ 0x01)
//   offset 33  IV         16 bytes
//   offset 49  C          16·(⌊n/16⌋+1) bytes  AES-256-CBC(encKey, IV, PKCS#7(plaintext))
// A bound cell (wire-format.md "Bound cells") has the same layout with version 0x02 and
//   tag = HMAC-SHA256(boundMacKey, A ‖ IV ‖ C ‖ u64be(8·|A|)), A = the binding's associated data (starts with 0x02).
namespace Encryption.Custom.Crypto;

/// <summary>Offsets and sizes of an AEAD cell, and of the keys and blocks it is built from.</summary>
internal static class AeadCellLayout
{
    /// <summary>The only algorithm version byte format 2 and 3 write.</summary>
    public const byte Version = 0x01;

    /// <summary>The version byte of a bound cell, whose tag also covers the caller's associated data.</summary>
    public const byte BoundVersion = 0x02;

    /// <summary>The tag input of a bound cell ends with the bit length of the associated data, as a big-endian u64.</summary>
    public const int AssociatedDataLengthSize = 8;

    /// <summary>The longest associated data a bound cell accepts (the binding's own limits keep it far below).</summary>
    public const int MaxAssociatedDataLength = 64 * 1024;

    /// <summary>The tag input ends with the length of the version field, which is one byte.</summary>
    public const byte VersionLength = 0x01;

    public const int TagOffset = 1;
    public const int TagSize = 32;
    public const int IvOffset = TagOffset + TagSize;
    public const int IvSize = 16;
    public const int CipherTextOffset = IvOffset + IvSize;

    /// <summary>Version, tag and IV: everything before the AES-CBC ciphertext.</summary>
    public const int HeaderSize = CipherTextOffset;

    public const int BlockSize = 16;

    /// <summary>The shortest cell: an empty plaintext still produces one block of padding.</summary>
    public const int MinimumCellSize = HeaderSize + BlockSize;

    /// <summary>The size of the root key and of each derived sub-key.</summary>
    public const int KeySize = 32;

    /// <summary>Encryption, MAC and IV keys, in that order.</summary>
    public const int DerivedKeysSize = 3 * KeySize;

    /// <summary>The largest plaintext whose cell length still fits in an <see cref="int"/>.</summary>
    public const int MaxPlainTextLength = ((int.MaxValue - HeaderSize) / BlockSize * BlockSize) - 1;

    /// <summary>Stack buffers for secrets and small inputs never exceed this size (house style).</summary>
    public const int MaxStackBufferSize = 256;
}

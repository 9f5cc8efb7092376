// One value of a batch of AES-256-CBC encryptions under one key (wire-format.md §1: C = AES-256-CBC(encKey, IV,
// PKCS#7(plaintext))). A batch describes its values by offsets into two shared buffers, so a document's values can
// be handed over at once without allocating (spans cannot be stored in an array).
namespace Encryption.Custom.Crypto.Chains;

/// <summary>
/// One CBC chain of a batch: the plaintext at <paramref name="PlainTextOffset"/> (<paramref name="PlainTextLength"/>
/// bytes, any length: PKCS#7 padding is added as the AEAD adds it) in the batch's plaintext buffer; the 16-byte IV at
/// <paramref name="IvOffset"/> and the ciphertext (<see cref="CbcChainBatch.PaddedLength"/> bytes) at
/// <paramref name="CipherTextOffset"/> in the batch's output buffer.
/// </summary>
internal readonly record struct CbcChain(int PlainTextOffset, int PlainTextLength, int IvOffset, int CipherTextOffset);

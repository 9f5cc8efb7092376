// One value of a batch of AEAD cells (wire-format.md §1), by offsets into the batch's shared buffers so that a
// document's values can be handed over at once without allocating.
namespace Encryption.Custom.Crypto.Chains;

/// <summary>
/// One cell of <see cref="AeadAes256CbcHmacSha256.EncryptBatch"/>: the plaintext at <paramref name="PlainTextOffset"/>
/// (<paramref name="PlainTextLength"/> bytes) in the batch's plaintexts; the cell
/// (<see cref="AeadAes256CbcHmacSha256.GetCipherTextLength"/> bytes) at <paramref name="CellOffset"/> in its output.
/// With <paramref name="Deterministic"/>, the IV is derived from the IV context at <paramref name="IvContextOffset"/>
/// (<paramref name="IvContextLength"/> bytes) in the batch's IV contexts, as <c>EncryptDeterministic</c> derives it;
/// otherwise it is random.
/// </summary>
internal readonly record struct AeadBatchValue(
    int PlainTextOffset,
    int PlainTextLength,
    int CellOffset,
    bool Deterministic = false,
    int IvContextOffset = 0,
    int IvContextLength = 0);

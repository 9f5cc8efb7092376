using Encryption.Custom.Keys;

namespace Encryption.Custom.Performance.Tests.Documents;

/// <summary>
/// Wraps a key and keeps a copy of every plaintext a processor hands to the AEAD and of every cell it gets back, so a
/// benchmark can repeat exactly that cryptographic work on its own. Setup only: it allocates per value.
/// </summary>
internal sealed class RecordingDataEncryptionKey(DataEncryptionKey inner) : DataEncryptionKey
{
    public List<byte[]> PlainTexts { get; } = [];

    public List<byte[]> Cells { get; } = [];

    public override string EncryptionAlgorithm => inner.EncryptionAlgorithm;

    public override int GetEncryptByteCount(int plainTextLength) => inner.GetEncryptByteCount(plainTextLength);

    public override int GetDecryptByteCount(int cipherTextLength) => inner.GetDecryptByteCount(cipherTextLength);

    public override int EncryptData(ReadOnlySpan<byte> plainText, Span<byte> destination)
    {
        int written = inner.EncryptData(plainText, destination);
        PlainTexts.Add(plainText.ToArray());
        Cells.Add(destination[..written].ToArray());
        return written;
    }

    // A deterministic path (the Lookup shape): recorded like any value, so the crypto-only replay covers it too
    // (the replay encrypts it randomized: the same cipher work without the IV's HMAC).
    internal override int EncryptDeterministicLeased(ReadOnlySpan<byte> ivContext, ReadOnlySpan<byte> plainText, Span<byte> destination)
    {
        using DataEncryptionKeyLease lease = DataEncryptionKeyLease.Acquire(inner);
        int written = inner.EncryptDeterministicLeased(ivContext, plainText, destination);
        PlainTexts.Add(plainText.ToArray());
        Cells.Add(destination[..written].ToArray());
        return written;
    }

    public override int DecryptData(ReadOnlySpan<byte> cipherText, Span<byte> destination) => inner.DecryptData(cipherText, destination);
}

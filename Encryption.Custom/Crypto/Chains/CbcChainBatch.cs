// The rules every multi-chain CBC path checks before it encrypts anything (fail closed: a bad batch writes nothing),
// and the PKCS#7 padding the AEAD applies by hand (wire-format.md §1), shared so that every path pads alike.
using System.Diagnostics.CodeAnalysis;

namespace Encryption.Custom.Crypto.Chains;

/// <summary>Validation and padding for a batch of <see cref="CbcChain"/>s.</summary>
internal static class CbcChainBatch
{
    private const int BlockSize = AeadCellLayout.BlockSize;

    /// <summary>The ciphertext length of a plaintext of <paramref name="plainTextLength"/> bytes: PKCS#7 always adds 1 to 16 bytes.</summary>
    public static int PaddedLength(int plainTextLength) => (plainTextLength & ~(BlockSize - 1)) + BlockSize;

    /// <summary>
    /// Throws unless every chain's plaintext lies inside <paramref name="plainTexts"/>, its IV and ciphertext inside
    /// <paramref name="output"/> without overlapping each other, and the two buffers do not overlap. Chains must not
    /// overlap each other's output either (not checked: it would cost a sort per batch; the callers lay the cells out
    /// one after another).
    /// </summary>
    /// <exception cref="ArgumentException">The buffers overlap, or a chain's IV overlaps its ciphertext.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A chain lies outside its buffer.</exception>
    public static void Validate(ReadOnlySpan<byte> plainTexts, ReadOnlySpan<byte> output, ReadOnlySpan<CbcChain> chains)
    {
        if (plainTexts.Overlaps(output))
        {
            throw new ArgumentException("The plaintexts and the output must not overlap.", nameof(output));
        }

        foreach (CbcChain chain in chains)
        {
            if (chain.PlainTextOffset < 0 || chain.PlainTextLength < 0 || (long)chain.PlainTextOffset + chain.PlainTextLength > plainTexts.Length)
            {
                ThrowOutOfRange(nameof(plainTexts));
            }

            long paddedLength = ((long)chain.PlainTextLength & ~(BlockSize - 1)) + BlockSize;
            if (chain.IvOffset < 0 || (long)chain.IvOffset + BlockSize > output.Length
                || chain.CipherTextOffset < 0 || chain.CipherTextOffset + paddedLength > output.Length)
            {
                ThrowOutOfRange(nameof(output));
            }

            if (chain.IvOffset < chain.CipherTextOffset + paddedLength && chain.CipherTextOffset < chain.IvOffset + BlockSize)
            {
                throw new ArgumentException("A chain's IV overlaps its ciphertext.", nameof(chains));
            }
        }
    }

    /// <summary>
    /// Writes the last plaintext block with its PKCS#7 padding to <paramref name="block"/> (16 bytes) from the
    /// plaintext's <paramref name="tail"/> (0 to 15 bytes after its last whole block).
    /// </summary>
    public static void PadLastBlock(ReadOnlySpan<byte> tail, Span<byte> block)
    {
        tail.CopyTo(block);
        block[tail.Length..BlockSize].Fill((byte)(BlockSize - tail.Length));
    }

    [DoesNotReturn]
    private static void ThrowOutOfRange(string parameterName) =>
        throw new ArgumentOutOfRangeException(parameterName, "A chain lies outside its buffer.");
}

// A batch of format-3 cells (wire-format.md §1) encrypted together (issue 37): every IV first, then every value's
// AES-CBC as interleaved chains (AeadContext.EncryptCbcChains: four AES-NI chains at a time where the CPU has them,
// value by value elsewhere), then every tag. Each cell is byte for byte the cell Encrypt or EncryptDeterministic
// writes for the same IV. Values go in groups of ChainGroup so that the chain descriptors fit on the stack.
using System.Diagnostics.CodeAnalysis;
using System.Security.Cryptography;
using Encryption.Custom.Crypto.Chains;

namespace Encryption.Custom.Crypto;

internal sealed partial class AeadAes256CbcHmacSha256
{
    // 32 descriptors are 512 bytes of stack; a group that long keeps four lanes busy for all but its last few values.
    private const int ChainGroup = 32;

    /// <summary>
    /// Encrypts every value of <paramref name="values"/> into its cell in <paramref name="output"/> (see
    /// <see cref="AeadBatchValue"/>). The whole batch is checked before anything is written. Cells must not overlap
    /// each other (not checked; callers lay them out one after another).
    /// </summary>
    /// <param name="plainTexts">The values' plaintexts.</param>
    /// <param name="ivContexts">The deterministic values' IV contexts (may be empty when no value is deterministic).</param>
    /// <param name="output">Receives the cells; must not overlap <paramref name="plainTexts"/> or <paramref name="ivContexts"/>.</param>
    /// <param name="values">Where each value and its cell are.</param>
    /// <exception cref="ArgumentException">The buffers overlap.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A value, context or cell lies outside its buffer.</exception>
    /// <exception cref="ObjectDisposedException">This instance, or the key source, was disposed.</exception>
    /// <exception cref="CryptographicException">The cryptographic provider failed.</exception>
    public void EncryptBatch(ReadOnlySpan<byte> plainTexts, ReadOnlySpan<byte> ivContexts, Span<byte> output, ReadOnlySpan<AeadBatchValue> values)
    {
        ThrowIfDisposed();
        ValidateBatch(plainTexts, ivContexts, output, values);
        if (values.IsEmpty)
        {
            return;
        }

        Span<CbcChain> chains = stackalloc CbcChain[ChainGroup];
        AeadContext context = _pool.Rent();
        bool completed = false;
        try
        {
            for (int start = 0; start < values.Length; start += ChainGroup)
            {
                ReadOnlySpan<AeadBatchValue> group = values.Slice(start, Math.Min(ChainGroup, values.Length - start));
                EncryptGroup(context, plainTexts, ivContexts, output, group, chains[..group.Length]);
            }

            completed = true;
        }
        finally
        {
            _pool.Return(context, reusable: completed);
        }
    }

    private static void EncryptGroup(
        AeadContext context,
        ReadOnlySpan<byte> plainTexts,
        ReadOnlySpan<byte> ivContexts,
        Span<byte> output,
        ReadOnlySpan<AeadBatchValue> group,
        Span<CbcChain> chains)
    {
        for (int i = 0; i < group.Length; i++)
        {
            AeadBatchValue value = group[i];
            Span<byte> iv = output.Slice(value.CellOffset + AeadCellLayout.IvOffset, AeadCellLayout.IvSize);
            if (value.Deterministic)
            {
                ReadOnlySpan<byte> plainText = plainTexts.Slice(value.PlainTextOffset, value.PlainTextLength);
                WriteDeterministicIv(context, ivContexts.Slice(value.IvContextOffset, value.IvContextLength), plainText, iv);
            }
            else
            {
                AeadRandomIv.Fill(iv);
            }

            chains[i] = new CbcChain(value.PlainTextOffset, value.PlainTextLength, value.CellOffset + AeadCellLayout.IvOffset, value.CellOffset + AeadCellLayout.CipherTextOffset);
        }

        context.EncryptCbcChains(plainTexts, output, chains);
        foreach (AeadBatchValue value in group)
        {
            Span<byte> cell = output.Slice(value.CellOffset, GetCipherTextLength(value.PlainTextLength));
            cell[0] = AeadCellLayout.Version;
            context.ComputeTag(cell[AeadCellLayout.IvOffset..], cell.Slice(AeadCellLayout.TagOffset, AeadCellLayout.TagSize));
        }
    }

    private static void ValidateBatch(ReadOnlySpan<byte> plainTexts, ReadOnlySpan<byte> ivContexts, ReadOnlySpan<byte> output, ReadOnlySpan<AeadBatchValue> values)
    {
        if (plainTexts.Overlaps(output) || ivContexts.Overlaps(output))
        {
            AeadErrors.ThrowOverlappingBuffers(nameof(output));
        }

        foreach (AeadBatchValue value in values)
        {
            if (value.PlainTextOffset < 0 || value.PlainTextLength < 0 || (long)value.PlainTextOffset + value.PlainTextLength > plainTexts.Length)
            {
                ThrowOutsideBuffer(nameof(plainTexts));
            }

            if (value.Deterministic
                && (value.IvContextOffset < 0 || value.IvContextLength < 0 || (long)value.IvContextOffset + value.IvContextLength > ivContexts.Length))
            {
                ThrowOutsideBuffer(nameof(ivContexts));
            }

            if (value.CellOffset < 0 || (long)value.CellOffset + GetCipherTextLength(value.PlainTextLength) > output.Length)
            {
                ThrowOutsideBuffer(nameof(output));
            }
        }
    }

    [DoesNotReturn]
    private static void ThrowOutsideBuffer(string paramName) =>
        throw new ArgumentOutOfRangeException(paramName, "A value of the batch lies outside its buffer.");
}

// A document's values encrypted as one batch of CBC chains (issue 37): interleaved with AES-NI where the CPU has it,
// otherwise value by value through the backend's cipher, with the same padding, so both give the same bytes.
// The interleaved encryptor's round keys are part of this context's keyed state: built on first use from the
// encryption sub-key, kept in protected memory, wiped when the context is disposed.
using System.Security.Cryptography;
using Encryption.Custom.Crypto.Chains;
using Encryption.Custom.Native.Memory;

namespace Encryption.Custom.Crypto;

internal sealed partial class AeadContext
{
    private readonly ProtectedMemoryPool _roundKeyPool;
    private readonly bool _interleavedChains;
    private InterleavedAesCbcEncryptor? _chainEncryptor;

    /// <summary>
    /// AES-256-CBC-encrypts every chain of the batch (see <see cref="CbcChain"/>): PKCS#7-pads its plaintext from
    /// <paramref name="plainTexts"/>, reads its IV from <paramref name="output"/> and writes its ciphertext there.
    /// Checks the whole batch before it encrypts anything.
    /// </summary>
    /// <exception cref="ArgumentException">The batch is malformed (<see cref="CbcChainBatch.Validate"/>).</exception>
    /// <exception cref="ObjectDisposedException">The key source was released.</exception>
    public void EncryptCbcChains(ReadOnlySpan<byte> plainTexts, Span<byte> output, ReadOnlySpan<CbcChain> chains)
    {
        if (_interleavedChains)
        {
            // The encryptor checks the batch itself before it encrypts anything.
            (_chainEncryptor ??= CreateChainEncryptor()).Encrypt(plainTexts, output, chains);
            return;
        }

        CbcChainBatch.Validate(plainTexts, output, chains);
        Span<byte> lastBlock = stackalloc byte[AeadCellLayout.BlockSize];
        try
        {
            foreach (CbcChain chain in chains)
            {
                int wholeBlocksLength = chain.PlainTextLength & ~(AeadCellLayout.BlockSize - 1);
                ReadOnlySpan<byte> plainText = plainTexts.Slice(chain.PlainTextOffset, chain.PlainTextLength);
                CbcChainBatch.PadLastBlock(plainText[wholeBlocksLength..], lastBlock);
                EncryptCbc(
                    output.Slice(chain.IvOffset, AeadCellLayout.IvSize),
                    plainText[..wholeBlocksLength],
                    lastBlock,
                    output.Slice(chain.CipherTextOffset, wholeBlocksLength + AeadCellLayout.BlockSize));
            }
        }
        finally
        {
            CryptographicOperations.ZeroMemory(lastBlock);
        }
    }

    private InterleavedAesCbcEncryptor CreateChainEncryptor()
    {
        var state = new ChainKeyingState { Pool = _roundKeyPool };
        _keySource.UseSubKey(
            AeadSubKey.Encryption,
            static (scoped ReadOnlySpan<byte> key, ref ChainKeyingState s) => s.Encryptor = InterleavedAesCbcEncryptor.Create(key, s.Pool),
            ref state);
        return state.Encryptor!;
    }

    private struct ChainKeyingState
    {
        public ProtectedMemoryPool Pool;
        public InterleavedAesCbcEncryptor? Encryptor;
    }
}

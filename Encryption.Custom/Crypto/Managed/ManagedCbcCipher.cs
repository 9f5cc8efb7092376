// AES-256-CBC (wire-format.md §1) over one long-lived BCL ICryptoTransform, with a new IV per message and no
// allocation. The transform is never finalized, so it keeps chaining across messages from its last ciphertext
// block S. CBC computes c0 = E(p0 ⊕ S), so a message with IV v feeds p0 ⊕ v ⊕ S when encrypting, and corrects
// the first plaintext block by ⊕ (S ⊕ v) when decrypting; every later block chains normally. The result is
// exactly AES-CBC with IV v. The transform takes arrays only, so data passes through one owned scratch array
// in chunks (cleared after each chunk, since it holds plaintext).
using System.Diagnostics;
using System.Security.Cryptography;

namespace Encryption.Custom.Crypto.Managed;

/// <summary>One keyed AES-256-CBC direction over a reused BCL transform; one message at a time.</summary>
internal sealed class ManagedCbcCipher : CbcCipher
{
    private const int ChunkSize = 4096;

    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private readonly ICryptoTransform _transform;
    private readonly bool _encrypting;

    // [0, ChunkSize) input, [ChunkSize, 2·ChunkSize) output: TransformBlock is never asked to work in place.
    private readonly byte[] _scratch = new byte[2 * ChunkSize];
    private readonly byte[] _chain = new byte[AeadCellLayout.BlockSize];
    private readonly byte[] _correction = new byte[AeadCellLayout.BlockSize];
    private bool _atMessageStart;

    private ManagedCbcCipher(ICryptoTransform transform, bool encrypting)
    {
        _transform = transform;
        _encrypting = encrypting;
    }

    /// <summary>Builds a cipher keyed with <paramref name="key"/> (32 bytes); the caller wipes the key.</summary>
    public static ManagedCbcCipher Create(ReadOnlySpan<byte> key, bool encrypting)
    {
        if (key.Length != AeadCellLayout.KeySize)
        {
            AeadErrors.ThrowWrongKeySize(nameof(key));
        }

        // SetKey(span) keeps the key in fixed native memory inside Aes, and the transform keys its own native
        // context from it: no managed key array. Disposing the Aes releases that copy; the transform stays valid.
        using Aes aes = Aes.Create();
        aes.SetKey(key);
        aes.Mode = CipherMode.CBC;
        aes.Padding = PaddingMode.None;
        aes.IV = new byte[AeadCellLayout.BlockSize];
        ICryptoTransform transform = encrypting ? aes.CreateEncryptor() : aes.CreateDecryptor();
        return new ManagedCbcCipher(transform, encrypting);
    }

    /// <summary>Starts a new message with <paramref name="iv"/>.</summary>
    public override void Reset(ReadOnlySpan<byte> iv)
    {
        for (int i = 0; i < AeadCellLayout.BlockSize; i++)
        {
            _correction[i] = (byte)(iv[i] ^ _chain[i]);
        }

        _atMessageStart = true;
    }

    /// <summary>Transforms whole blocks, continuing the chain; <paramref name="output"/> is exactly as long as <paramref name="input"/>.</summary>
    public override void Update(ReadOnlySpan<byte> input, Span<byte> output)
    {
        while (!input.IsEmpty)
        {
            int count = Math.Min(input.Length, ChunkSize);
            Span<byte> chunkIn = _scratch.AsSpan(0, count);
            Span<byte> chunkOut = _scratch.AsSpan(ChunkSize, count);
            input[..count].CopyTo(chunkIn);
            if (_encrypting && _atMessageStart)
            {
                Xor(chunkIn, _correction);
            }

            int written = _transform.TransformBlock(_scratch, 0, count, _scratch, ChunkSize);
            if (written != count)
            {
                AeadErrors.ThrowCipherFailure();
            }

            if (!_encrypting && _atMessageStart)
            {
                Xor(chunkOut, _correction);
            }

            _atMessageStart = false;

            // The transform's chaining value is now the last ciphertext block it saw or produced.
            (_encrypting ? chunkOut : chunkIn)[(count - AeadCellLayout.BlockSize)..].CopyTo(_chain);
            chunkOut.CopyTo(output);
            CryptographicOperations.ZeroMemory(_encrypting ? chunkIn : chunkOut);

            input = input[count..];
            output = output[count..];
        }
    }

    public override void Dispose()
    {
        _transform.Dispose();
        CryptographicOperations.ZeroMemory(_scratch);
    }

    private static void Xor(Span<byte> block, ReadOnlySpan<byte> mask)
    {
        for (int i = 0; i < AeadCellLayout.BlockSize; i++)
        {
            block[i] ^= mask[i];
        }
    }
}

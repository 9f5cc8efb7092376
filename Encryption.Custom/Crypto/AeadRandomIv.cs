// Randomized IVs for AEAD_AES_256_CBC_HMAC_SHA256 (wire-format.md §1: IV = 16 bytes from a CSPRNG).
// One CSPRNG call costs about the same for 16 bytes as for 4 KB, so each thread draws 4 KB at a time and hands
// out 16-byte slices; every byte is used once. IVs are public (they travel in the cell), so the buffer holds
// nothing secret.
using System.Security.Cryptography;

namespace Encryption.Custom.Crypto;

/// <summary>A per-thread batched source of random IVs.</summary>
internal static class AeadRandomIv
{
    private const int BatchSize = 4096;

    [ThreadStatic]
    private static byte[]? s_batch;

    [ThreadStatic]
    private static int s_next;

    /// <summary>Fills <paramref name="iv"/> (16 bytes) with fresh CSPRNG output.</summary>
    public static void Fill(Span<byte> iv)
    {
        byte[]? batch = s_batch;
        int next = s_next;
        if (batch is null || next > BatchSize - AeadCellLayout.IvSize)
        {
            batch ??= s_batch = new byte[BatchSize];
            RandomNumberGenerator.Fill(batch);
            next = 0;
        }

        batch.AsSpan(next, AeadCellLayout.IvSize).CopyTo(iv);
        s_next = next + AeadCellLayout.IvSize;
    }
}

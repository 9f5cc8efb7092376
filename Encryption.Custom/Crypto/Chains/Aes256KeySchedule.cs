// FIPS-197 §5.2 key expansion for AES-256 with AESKEYGENASSIST (x86 AES-NI), for the multi-chain encryptor. The
// schedule is as secret as the key: it is written only to the caller's (stack) buffer, which the caller moves into
// protected memory and wipes; nothing here keeps a copy.
using System.Diagnostics;
using System.Runtime.Intrinsics;
using X86Aes = System.Runtime.Intrinsics.X86.Aes;
using X86Sse2 = System.Runtime.Intrinsics.X86.Sse2;

namespace Encryption.Custom.Crypto.Chains;

/// <summary>Expands a 32-byte AES key into its 15 round keys.</summary>
internal static class Aes256KeySchedule
{
    /// <summary>AES-256 has 14 rounds, so 15 round keys.</summary>
    public const int Rounds = 14;

    /// <summary>15 round keys of 16 bytes.</summary>
    public const int Length = (Rounds + 1) * AeadCellLayout.BlockSize;

    /// <summary>Writes the 15 round keys of <paramref name="key"/> (32 bytes) to <paramref name="roundKeys"/> (240 bytes).</summary>
    /// <exception cref="PlatformNotSupportedException">AES-NI is not available.</exception>
    public static void Expand(ReadOnlySpan<byte> key, Span<byte> roundKeys)
    {
        if (!X86Aes.IsSupported)
        {
            throw new PlatformNotSupportedException("AES-NI is not available.");
        }

        Debug.Assert(key.Length == AeadCellLayout.KeySize && roundKeys.Length == Length, "a 32-byte key and a 240-byte schedule");
        Vector128<byte> a = Vector128.Create(key[..16]);
        Vector128<byte> b = Vector128.Create(key[16..32]);
        Store(roundKeys, 0, a);
        Store(roundKeys, 1, b);

        // The round constant is an immediate operand of AESKEYGENASSIST, so the seven steps are written out.
        Store(roundKeys, 2, a = Mix(a, X86Sse2.Shuffle(X86Aes.KeygenAssist(b, 0x01).AsInt32(), 0xFF).AsByte()));
        Store(roundKeys, 3, b = Mix(b, X86Sse2.Shuffle(X86Aes.KeygenAssist(a, 0x00).AsInt32(), 0xAA).AsByte()));
        Store(roundKeys, 4, a = Mix(a, X86Sse2.Shuffle(X86Aes.KeygenAssist(b, 0x02).AsInt32(), 0xFF).AsByte()));
        Store(roundKeys, 5, b = Mix(b, X86Sse2.Shuffle(X86Aes.KeygenAssist(a, 0x00).AsInt32(), 0xAA).AsByte()));
        Store(roundKeys, 6, a = Mix(a, X86Sse2.Shuffle(X86Aes.KeygenAssist(b, 0x04).AsInt32(), 0xFF).AsByte()));
        Store(roundKeys, 7, b = Mix(b, X86Sse2.Shuffle(X86Aes.KeygenAssist(a, 0x00).AsInt32(), 0xAA).AsByte()));
        Store(roundKeys, 8, a = Mix(a, X86Sse2.Shuffle(X86Aes.KeygenAssist(b, 0x08).AsInt32(), 0xFF).AsByte()));
        Store(roundKeys, 9, b = Mix(b, X86Sse2.Shuffle(X86Aes.KeygenAssist(a, 0x00).AsInt32(), 0xAA).AsByte()));
        Store(roundKeys, 10, a = Mix(a, X86Sse2.Shuffle(X86Aes.KeygenAssist(b, 0x10).AsInt32(), 0xFF).AsByte()));
        Store(roundKeys, 11, b = Mix(b, X86Sse2.Shuffle(X86Aes.KeygenAssist(a, 0x00).AsInt32(), 0xAA).AsByte()));
        Store(roundKeys, 12, a = Mix(a, X86Sse2.Shuffle(X86Aes.KeygenAssist(b, 0x20).AsInt32(), 0xFF).AsByte()));
        Store(roundKeys, 13, b = Mix(b, X86Sse2.Shuffle(X86Aes.KeygenAssist(a, 0x00).AsInt32(), 0xAA).AsByte()));
        Store(roundKeys, 14, Mix(a, X86Sse2.Shuffle(X86Aes.KeygenAssist(b, 0x40).AsInt32(), 0xFF).AsByte()));
    }

    // w ⊕ (w << 32) ⊕ (w << 64) ⊕ (w << 96) ⊕ assist: each word of the new round key is the previous one's running XOR.
    private static Vector128<byte> Mix(Vector128<byte> previous, Vector128<byte> assist)
    {
        Vector128<byte> x = previous;
        x ^= X86Sse2.ShiftLeftLogical128BitLane(x, 4);
        x ^= X86Sse2.ShiftLeftLogical128BitLane(x, 4);
        x ^= X86Sse2.ShiftLeftLogical128BitLane(x, 4);
        return x ^ assist;
    }

    private static void Store(Span<byte> roundKeys, int round, Vector128<byte> value) =>
        value.CopyTo(roundKeys.Slice(round * AeadCellLayout.BlockSize, AeadCellLayout.BlockSize));
}

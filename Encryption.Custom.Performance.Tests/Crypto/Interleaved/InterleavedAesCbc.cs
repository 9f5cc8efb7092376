// Experiment (issue 22, "past the limit"): AES-256-CBC over several independent messages at once with AES-NI.
// CBC encryption of one message is a serial chain: each block waits for the previous block's 14 rounds, so an
// AESENC unit that could start a new round every cycle sits idle for most of each round's latency. Four messages
// side by side keep four chains in flight. This is benchmark-only code: its round keys live in a managed array,
// which the product forbids (key bytes stay in protected or native memory). The product's version (issue 37,
// Encryption.Custom/Crypto/Chains/InterleavedAesCbcEncryptor.cs) keeps them masked in a protected slot; this one
// stays as the experiment's baseline in BatchEncryptRatios.
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using X86Aes = System.Runtime.Intrinsics.X86.Aes;
using X86Sse2 = System.Runtime.Intrinsics.X86.Sse2;

namespace Encryption.Custom.Performance.Tests.Crypto.Interleaved;

/// <summary>AES-256-CBC (no padding) over up to four messages at a time, rounds interleaved.</summary>
internal sealed class InterleavedAesCbc
{
    private const int Rounds = 14;
    private readonly Vector128<byte>[] _roundKeys = new Vector128<byte>[Rounds + 1];

    public InterleavedAesCbc(ReadOnlySpan<byte> key)
    {
        if (!X86Aes.IsSupported)
        {
            throw new PlatformNotSupportedException("AES-NI is not available.");
        }

        ExpandKey(key, _roundKeys);
    }

    public static bool IsSupported => X86Aes.IsSupported;

    /// <summary>
    /// Encrypts each message (whole blocks of <paramref name="input"/>) into <paramref name="output"/> with the IV
    /// stored in <paramref name="output"/>; <paramref name="lanes"/> messages at a time (1 or 4).
    /// </summary>
    public void Encrypt(byte[] input, byte[] output, ReadOnlySpan<Message> messages, int lanes)
    {
        ref byte inputs = ref MemoryMarshal.GetArrayDataReference(input);
        ref byte outputs = ref MemoryMarshal.GetArrayDataReference(output);
        for (int start = 0; start < messages.Length; start += lanes)
        {
            ReadOnlySpan<Message> group = messages.Slice(start, Math.Min(lanes, messages.Length - start));
            if (group.Length == 4)
            {
                EncryptFour(ref inputs, ref outputs, group);
            }
            else
            {
                foreach (Message message in group)
                {
                    EncryptOne(ref inputs, ref outputs, message, 0);
                }
            }
        }
    }

    private void EncryptOne(ref byte inputs, ref byte outputs, Message message, int firstBlock)
    {
        ReadOnlySpan<Vector128<byte>> keys = _roundKeys;
        Vector128<byte> chain = firstBlock == 0 ? Load(ref outputs, message.IvOffset) : Load(ref outputs, message.OutputOffset + ((firstBlock - 1) * 16));
        int blocks = message.Length / 16;
        for (int b = firstBlock; b < blocks; b++)
        {
            Vector128<byte> state = Load(ref inputs, message.InputOffset + (b * 16)) ^ chain ^ keys[0];
            for (int r = 1; r < Rounds; r++)
            {
                state = X86Aes.Encrypt(state, keys[r]);
            }

            chain = X86Aes.EncryptLast(state, keys[Rounds]);
            Store(ref outputs, message.OutputOffset + (b * 16), chain);
        }
    }

    private void EncryptFour(ref byte inputs, ref byte outputs, ReadOnlySpan<Message> group)
    {
        ReadOnlySpan<Vector128<byte>> keys = _roundKeys;
        Message m0 = group[0], m1 = group[1], m2 = group[2], m3 = group[3];
        int common = Math.Min(Math.Min(m0.Length, m1.Length), Math.Min(m2.Length, m3.Length)) / 16;
        Vector128<byte> c0 = Load(ref outputs, m0.IvOffset), c1 = Load(ref outputs, m1.IvOffset);
        Vector128<byte> c2 = Load(ref outputs, m2.IvOffset), c3 = Load(ref outputs, m3.IvOffset);
        for (int b = 0; b < common; b++)
        {
            int offset = b * 16;
            Vector128<byte> s0 = Load(ref inputs, m0.InputOffset + offset) ^ c0 ^ keys[0];
            Vector128<byte> s1 = Load(ref inputs, m1.InputOffset + offset) ^ c1 ^ keys[0];
            Vector128<byte> s2 = Load(ref inputs, m2.InputOffset + offset) ^ c2 ^ keys[0];
            Vector128<byte> s3 = Load(ref inputs, m3.InputOffset + offset) ^ c3 ^ keys[0];
            for (int r = 1; r < Rounds; r++)
            {
                Vector128<byte> k = keys[r];
                s0 = X86Aes.Encrypt(s0, k);
                s1 = X86Aes.Encrypt(s1, k);
                s2 = X86Aes.Encrypt(s2, k);
                s3 = X86Aes.Encrypt(s3, k);
            }

            Vector128<byte> last = keys[Rounds];
            c0 = X86Aes.EncryptLast(s0, last);
            c1 = X86Aes.EncryptLast(s1, last);
            c2 = X86Aes.EncryptLast(s2, last);
            c3 = X86Aes.EncryptLast(s3, last);
            Store(ref outputs, m0.OutputOffset + offset, c0);
            Store(ref outputs, m1.OutputOffset + offset, c1);
            Store(ref outputs, m2.OutputOffset + offset, c2);
            Store(ref outputs, m3.OutputOffset + offset, c3);
        }

        // Unequal lengths: each message finishes its own tail alone.
        EncryptOne(ref inputs, ref outputs, m0, common);
        EncryptOne(ref inputs, ref outputs, m1, common);
        EncryptOne(ref inputs, ref outputs, m2, common);
        EncryptOne(ref inputs, ref outputs, m3, common);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> Load(ref byte buffer, int offset) =>
        Unsafe.ReadUnaligned<Vector128<byte>>(ref Unsafe.Add(ref buffer, offset));

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Store(ref byte buffer, int offset, Vector128<byte> value) =>
        Unsafe.WriteUnaligned(ref Unsafe.Add(ref buffer, offset), value);

    // FIPS-197 AES-256 key expansion with AESKEYGENASSIST.
    private static void ExpandKey(ReadOnlySpan<byte> key, Span<Vector128<byte>> roundKeys)
    {
        Vector128<byte> a = Vector128.Create(key[..16]);
        Vector128<byte> b = Vector128.Create(key[16..32]);
        roundKeys[0] = a;
        roundKeys[1] = b;

        // The round constant must be an immediate, so the seven steps are written out.
        roundKeys[2] = a = Mix(a, X86Sse2.Shuffle(X86Aes.KeygenAssist(b, 0x01).AsInt32(), 0xFF).AsByte());
        roundKeys[3] = b = Mix(b, X86Sse2.Shuffle(X86Aes.KeygenAssist(a, 0x00).AsInt32(), 0xAA).AsByte());
        roundKeys[4] = a = Mix(a, X86Sse2.Shuffle(X86Aes.KeygenAssist(b, 0x02).AsInt32(), 0xFF).AsByte());
        roundKeys[5] = b = Mix(b, X86Sse2.Shuffle(X86Aes.KeygenAssist(a, 0x00).AsInt32(), 0xAA).AsByte());
        roundKeys[6] = a = Mix(a, X86Sse2.Shuffle(X86Aes.KeygenAssist(b, 0x04).AsInt32(), 0xFF).AsByte());
        roundKeys[7] = b = Mix(b, X86Sse2.Shuffle(X86Aes.KeygenAssist(a, 0x00).AsInt32(), 0xAA).AsByte());
        roundKeys[8] = a = Mix(a, X86Sse2.Shuffle(X86Aes.KeygenAssist(b, 0x08).AsInt32(), 0xFF).AsByte());
        roundKeys[9] = b = Mix(b, X86Sse2.Shuffle(X86Aes.KeygenAssist(a, 0x00).AsInt32(), 0xAA).AsByte());
        roundKeys[10] = a = Mix(a, X86Sse2.Shuffle(X86Aes.KeygenAssist(b, 0x10).AsInt32(), 0xFF).AsByte());
        roundKeys[11] = b = Mix(b, X86Sse2.Shuffle(X86Aes.KeygenAssist(a, 0x00).AsInt32(), 0xAA).AsByte());
        roundKeys[12] = a = Mix(a, X86Sse2.Shuffle(X86Aes.KeygenAssist(b, 0x20).AsInt32(), 0xFF).AsByte());
        roundKeys[13] = b = Mix(b, X86Sse2.Shuffle(X86Aes.KeygenAssist(a, 0x00).AsInt32(), 0xAA).AsByte());
        roundKeys[14] = Mix(a, X86Sse2.Shuffle(X86Aes.KeygenAssist(b, 0x40).AsInt32(), 0xFF).AsByte());
    }

    // w ⊕ (w << 32) ⊕ (w << 64) ⊕ (w << 96) ⊕ assist: the running XOR of the previous round key's words.
    private static Vector128<byte> Mix(Vector128<byte> previous, Vector128<byte> assist)
    {
        Vector128<byte> x = previous;
        x ^= X86Sse2.ShiftLeftLogical128BitLane(x, 4);
        x ^= X86Sse2.ShiftLeftLogical128BitLane(x, 4);
        x ^= X86Sse2.ShiftLeftLogical128BitLane(x, 4);
        return x ^ assist;
    }

    /// <summary>One message: <paramref name="Length"/> bytes (whole padded blocks) at offsets into the input and output arenas; its IV is in the output arena.</summary>
    internal readonly record struct Message(int InputOffset, int OutputOffset, int IvOffset, int Length);
}

// AES-256-CBC over many values at once with AES-NI (issue 37; measured first in Performance.Tests/Crypto/Interleaved).
// CBC encryption of one value is a serial chain: each block waits for the previous block's 14 rounds, so the AES unit,
// which could start a round every cycle or two, idles for most of each round's latency. Four values side by side keep
// four chains in flight. A lane that finishes its value takes the next one at once, so the lanes stay busy whatever
// the order and lengths of the values; lanes without a value encrypt zeros that are never stored.
// Key memory (docs/key-memory.md): the round keys live masked in a protected slot owned by this object and are
// unmasked into a stack buffer for one batch, wiped when the batch ends. Constant time: AES-NI has no table look-ups,
// and every branch depends on lengths and offsets (public: a cell's length gives them away), never on key or data.
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;
using System.Security.Cryptography;
using Encryption.Custom.Native.Memory;
using X86Aes = System.Runtime.Intrinsics.X86.Aes;

namespace Encryption.Custom.Crypto.Chains;

/// <summary>Encrypts a batch of <see cref="CbcChain"/>s under one AES-256 key, four chains interleaved. One batch at a time.</summary>
[DebuggerDisplay("{ToString(),nq}")]
internal sealed partial class InterleavedAesCbcEncryptor : IDisposable
{
    private const int Lanes = 4;
    private const int BlockSize = AeadCellLayout.BlockSize;

    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private readonly ProtectedSecret _roundKeys;

    private InterleavedAesCbcEncryptor(ProtectedSecret roundKeys)
    {
        _roundKeys = roundKeys;
    }

    /// <summary>Whether this process can run it (x86 AES-NI); elsewhere the callers encrypt value by value.</summary>
    public static bool IsSupported => X86Aes.IsSupported;

    /// <summary>What protects the round keys (for diagnostics and tests).</summary>
    public KeyMemoryProtection Protection => _roundKeys.Protection;

    /// <summary>Whether the round keys were wiped and returned.</summary>
    internal bool IsReleased => _roundKeys.IsReleased;

    /// <summary>Expands <paramref name="key"/> (32 bytes; the caller wipes it) into round keys held in <paramref name="pool"/>.</summary>
    /// <exception cref="ArgumentException"><paramref name="key"/> is not 32 bytes.</exception>
    /// <exception cref="PlatformNotSupportedException">AES-NI is not available (<see cref="IsSupported"/>).</exception>
    /// <exception cref="OutOfMemoryException">No memory could be mapped.</exception>
    [SkipLocalsInit]
    public static InterleavedAesCbcEncryptor Create(ReadOnlySpan<byte> key, ProtectedMemoryPool pool)
    {
        ArgumentNullException.ThrowIfNull(pool);
        if (key.Length != AeadCellLayout.KeySize)
        {
            throw new ArgumentException("The key must be exactly 32 bytes.", nameof(key));
        }

        Span<byte> schedule = stackalloc byte[Aes256KeySchedule.Length];
        try
        {
            Aes256KeySchedule.Expand(key, schedule);
            return new InterleavedAesCbcEncryptor(ProtectedSecret.Create(schedule, pool));
        }
        finally
        {
            CryptographicOperations.ZeroMemory(schedule);
        }
    }

    /// <summary>
    /// Encrypts every chain (see <see cref="CbcChain"/>): reads its plaintext from <paramref name="plainTexts"/> and its
    /// IV from <paramref name="output"/>, writes its PKCS#7-padded ciphertext to <paramref name="output"/>. Checks the
    /// whole batch first (<see cref="CbcChainBatch.Validate"/>), so a bad batch writes nothing.
    /// </summary>
    /// <exception cref="ArgumentException">The batch is malformed.</exception>
    /// <exception cref="ObjectDisposedException">The round keys were released.</exception>
    [SkipLocalsInit]
    public void Encrypt(ReadOnlySpan<byte> plainTexts, Span<byte> output, ReadOnlySpan<CbcChain> chains)
    {
        ObjectDisposedException.ThrowIf(IsReleased, this);
        CbcChainBatch.Validate(plainTexts, output, chains);
        if (chains.IsEmpty)
        {
            return;
        }

        Span<byte> schedule = stackalloc byte[Aes256KeySchedule.Length];
        Span<byte> lastBlocks = stackalloc byte[Lanes * BlockSize];
        Span<Lane> lanes = stackalloc Lane[Lanes];
        try
        {
            _roundKeys.Reveal(schedule);
            var feed = new ChainFeed(plainTexts, output, chains, lanes, lastBlocks);
            Run(schedule, ref feed);
        }
        finally
        {
            // The schedule is key material; the last blocks hold plaintext.
            CryptographicOperations.ZeroMemory(schedule);
            CryptographicOperations.ZeroMemory(lastBlocks);
        }
    }

    /// <summary>Wipes the round keys and returns their slot. Idempotent; the owner calls it when no batch can still run.</summary>
    public void Dispose() => _roundKeys.Dispose();

    /// <summary>Shows the protection only, never key bytes.</summary>
    public override string ToString() =>
        IsReleased ? "InterleavedAesCbcEncryptor (released)" : $"InterleavedAesCbcEncryptor (protection: {Protection})";

    // The round keys are read into locals once per batch, so the JIT keeps them in vector registers (AVX-512
    // machines have 32, enough for 15 keys and 8 lane values; elsewhere a few are re-read from the stack).
    private static void Run(ReadOnlySpan<byte> schedule, ref ChainFeed feed)
    {
        Vector128<byte> k0 = RoundKey(schedule, 0), k1 = RoundKey(schedule, 1), k2 = RoundKey(schedule, 2);
        Vector128<byte> k3 = RoundKey(schedule, 3), k4 = RoundKey(schedule, 4), k5 = RoundKey(schedule, 5);
        Vector128<byte> k6 = RoundKey(schedule, 6), k7 = RoundKey(schedule, 7), k8 = RoundKey(schedule, 8);
        Vector128<byte> k9 = RoundKey(schedule, 9), k10 = RoundKey(schedule, 10), k11 = RoundKey(schedule, 11);
        Vector128<byte> k12 = RoundKey(schedule, 12), k13 = RoundKey(schedule, 13), k14 = RoundKey(schedule, 14);

        // Each lane's chaining value: the IV before its first block, then its last ciphertext block.
        Vector128<byte> c0 = feed.Start(0), c1 = feed.Start(1), c2 = feed.Start(2), c3 = feed.Start(3);
        ReadOnlySpan<byte> plainTexts = feed.PlainTexts;
        Span<byte> output = feed.Output;
        while (feed.ActiveLanes > 0)
        {
            // The hot loop: four lanes busy on whole blocks. No call and no per-lane branch inside, so the JIT keeps the
            // chaining values in registers (a call in the loop made it spill them, which put a store and a load on
            // every block's critical path).
            int steps = feed.CommonWholeBlocks();
            if (steps > 0)
            {
                int i0 = feed.InputOffset(0), i1 = feed.InputOffset(1), i2 = feed.InputOffset(2), i3 = feed.InputOffset(3);
                int o0 = feed.OutputOffset(0), o1 = feed.OutputOffset(1), o2 = feed.OutputOffset(2), o3 = feed.OutputOffset(3);
                for (int step = 0; step < steps; step++)
                {
                    int offset = step * BlockSize;
                    Vector128<byte> x0 = (Block(plainTexts, i0 + offset) ^ k0) ^ c0;
                    Vector128<byte> x1 = (Block(plainTexts, i1 + offset) ^ k0) ^ c1;
                    Vector128<byte> x2 = (Block(plainTexts, i2 + offset) ^ k0) ^ c2;
                    Vector128<byte> x3 = (Block(plainTexts, i3 + offset) ^ k0) ^ c3;
                    Round(ref x0, ref x1, ref x2, ref x3, k1);
                    Round(ref x0, ref x1, ref x2, ref x3, k2);
                    Round(ref x0, ref x1, ref x2, ref x3, k3);
                    Round(ref x0, ref x1, ref x2, ref x3, k4);
                    Round(ref x0, ref x1, ref x2, ref x3, k5);
                    Round(ref x0, ref x1, ref x2, ref x3, k6);
                    Round(ref x0, ref x1, ref x2, ref x3, k7);
                    Round(ref x0, ref x1, ref x2, ref x3, k8);
                    Round(ref x0, ref x1, ref x2, ref x3, k9);
                    Round(ref x0, ref x1, ref x2, ref x3, k10);
                    Round(ref x0, ref x1, ref x2, ref x3, k11);
                    Round(ref x0, ref x1, ref x2, ref x3, k12);
                    Round(ref x0, ref x1, ref x2, ref x3, k13);
                    c0 = X86Aes.EncryptLast(x0, k14);
                    c1 = X86Aes.EncryptLast(x1, k14);
                    c2 = X86Aes.EncryptLast(x2, k14);
                    c3 = X86Aes.EncryptLast(x3, k14);
                    c0.CopyTo(output.Slice(o0 + offset, BlockSize));
                    c1.CopyTo(output.Slice(o1 + offset, BlockSize));
                    c2.CopyTo(output.Slice(o2 + offset, BlockSize));
                    c3.CopyTo(output.Slice(o3 + offset, BlockSize));
                }

                feed.Advance(steps);
                continue;
            }

            // One value left in one lane (a document dominated by one large value): its whole blocks alone, in the
            // same call-free shape, so it runs as fast as a single-chain CBC.
            int lane = feed.LastLane();
            if (lane >= 0 && (steps = feed.WholeBlocksLeft(lane)) > 0)
            {
                Vector128<byte> c = lane switch { 0 => c0, 1 => c1, 2 => c2, _ => c3 };
                int input = feed.InputOffset(lane);
                int cipherText = feed.OutputOffset(lane);
                for (int step = 0; step < steps; step++)
                {
                    int offset = step * BlockSize;
                    Vector128<byte> s = (Block(plainTexts, input + offset) ^ k0) ^ c;
                    s = X86Aes.Encrypt(s, k1);
                    s = X86Aes.Encrypt(s, k2);
                    s = X86Aes.Encrypt(s, k3);
                    s = X86Aes.Encrypt(s, k4);
                    s = X86Aes.Encrypt(s, k5);
                    s = X86Aes.Encrypt(s, k6);
                    s = X86Aes.Encrypt(s, k7);
                    s = X86Aes.Encrypt(s, k8);
                    s = X86Aes.Encrypt(s, k9);
                    s = X86Aes.Encrypt(s, k10);
                    s = X86Aes.Encrypt(s, k11);
                    s = X86Aes.Encrypt(s, k12);
                    s = X86Aes.Encrypt(s, k13);
                    c = X86Aes.EncryptLast(s, k14);
                    c.CopyTo(output.Slice(cipherText + offset, BlockSize));
                }

                feed.Advance(lane, steps);
                switch (lane)
                {
                    case 0: c0 = c; break;
                    case 1: c1 = c; break;
                    case 2: c2 = c; break;
                    default: c3 = c; break;
                }

                continue;
            }

            // Lanes at a value's last (padded) block, idle lanes, lanes changing value: one step with bookkeeping.
            Vector128<byte> s0 = (feed.Input(0) ^ k0) ^ c0;
            Vector128<byte> s1 = (feed.Input(1) ^ k0) ^ c1;
            Vector128<byte> s2 = (feed.Input(2) ^ k0) ^ c2;
            Vector128<byte> s3 = (feed.Input(3) ^ k0) ^ c3;
            Round(ref s0, ref s1, ref s2, ref s3, k1);
            Round(ref s0, ref s1, ref s2, ref s3, k2);
            Round(ref s0, ref s1, ref s2, ref s3, k3);
            Round(ref s0, ref s1, ref s2, ref s3, k4);
            Round(ref s0, ref s1, ref s2, ref s3, k5);
            Round(ref s0, ref s1, ref s2, ref s3, k6);
            Round(ref s0, ref s1, ref s2, ref s3, k7);
            Round(ref s0, ref s1, ref s2, ref s3, k8);
            Round(ref s0, ref s1, ref s2, ref s3, k9);
            Round(ref s0, ref s1, ref s2, ref s3, k10);
            Round(ref s0, ref s1, ref s2, ref s3, k11);
            Round(ref s0, ref s1, ref s2, ref s3, k12);
            Round(ref s0, ref s1, ref s2, ref s3, k13);
            c0 = feed.Finish(0, X86Aes.EncryptLast(s0, k14));
            c1 = feed.Finish(1, X86Aes.EncryptLast(s1, k14));
            c2 = feed.Finish(2, X86Aes.EncryptLast(s2, k14));
            c3 = feed.Finish(3, X86Aes.EncryptLast(s3, k14));
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Round(ref Vector128<byte> s0, ref Vector128<byte> s1, ref Vector128<byte> s2, ref Vector128<byte> s3, Vector128<byte> key)
    {
        s0 = X86Aes.Encrypt(s0, key);
        s1 = X86Aes.Encrypt(s1, key);
        s2 = X86Aes.Encrypt(s2, key);
        s3 = X86Aes.Encrypt(s3, key);
    }

    private static Vector128<byte> Block(ReadOnlySpan<byte> buffer, int offset) =>
        Vector128.Create(buffer.Slice(offset, BlockSize));

    private static Vector128<byte> RoundKey(ReadOnlySpan<byte> schedule, int round) =>
        Vector128.Create(schedule.Slice(round * BlockSize, BlockSize));
}

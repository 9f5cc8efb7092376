using System.Runtime.Intrinsics;

namespace Encryption.Custom.Native.Memory;

/// <summary>XOR of a secret with its mask pad: stores (secret ⊕ pad) and recovers (stored ⊕ pad).</summary>
internal static unsafe class MaskXor
{
    /// <summary>Writes <c>source[i] ^ pad[i]</c> to <c>destination[i]</c> for <paramref name="length"/> bytes.</summary>
    public static void Apply(byte* source, byte* pad, byte* destination, int length)
    {
        int i = 0;
        if (Vector256.IsHardwareAccelerated)
        {
            for (; i <= length - Vector256<byte>.Count; i += Vector256<byte>.Count)
            {
                Vector256.Store(Vector256.Load(source + i) ^ Vector256.Load(pad + i), destination + i);
            }
        }

        if (Vector128.IsHardwareAccelerated)
        {
            for (; i <= length - Vector128<byte>.Count; i += Vector128<byte>.Count)
            {
                Vector128.Store(Vector128.Load(source + i) ^ Vector128.Load(pad + i), destination + i);
            }
        }

        for (; i < length; i++)
        {
            destination[i] = (byte)(source[i] ^ pad[i]);
        }
    }
}

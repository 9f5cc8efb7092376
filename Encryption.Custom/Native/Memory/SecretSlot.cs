using System.Diagnostics;
using System.Security.Cryptography;

namespace Encryption.Custom.Native.Memory;

/// <summary>
/// One slot of protected memory holding a secret XOR-masked with the pool's pad. The unmasked secret exists only
/// in a caller's buffer after <see cref="Reveal"/>, which the caller wipes.
/// A copy of this handle is only valid until the slot is returned with <see cref="ProtectedMemoryPool.Free"/>.
/// </summary>
[DebuggerDisplay("SecretSlot ({Length} bytes)")]
internal readonly unsafe struct SecretSlot
{
    private readonly byte* _stored;
    private readonly byte* _pad;

    internal SecretSlot(SecretSlab slab, int index, int length, byte* pad)
    {
        Slab = slab;
        Index = index;
        Length = length;
        _stored = slab.SlotPointer(index);
        _pad = pad;
    }

    /// <summary>The secret's length in bytes.</summary>
    public int Length { get; }

    /// <summary>What protects the stored bytes.</summary>
    public KeyMemoryProtection Protection => Slab.Region.Protection | KeyMemoryProtection.Masked;

    internal SecretSlab Slab { get; }

    internal int Index { get; }

    /// <summary>Masks <paramref name="secret"/> into the slot at <paramref name="offset"/>.</summary>
    public void Store(ReadOnlySpan<byte> secret, int offset = 0)
    {
        CheckRange(offset, secret.Length);
        fixed (byte* source = secret)
        {
            MaskXor.Apply(source, _pad + offset, _stored + offset, secret.Length);
        }
    }

    /// <summary>Unmasks <paramref name="destination"/>.Length bytes from <paramref name="offset"/> into <paramref name="destination"/>; the caller wipes it.</summary>
    public void Reveal(int offset, Span<byte> destination)
    {
        CheckRange(offset, destination.Length);
        fixed (byte* target = destination)
        {
            MaskXor.Apply(_stored + offset, _pad + offset, target, destination.Length);
        }
    }

    /// <summary>Zeroes the slot (a stored value of zero, not the masked form of zero).</summary>
    public void Wipe() => CryptographicOperations.ZeroMemory(new Span<byte>(_stored, Slab.SlotSize));

    private void CheckRange(int offset, int length)
    {
        if ((uint)offset > (uint)Length || (uint)length > (uint)(Length - offset))
        {
            ThrowOutOfRange();
        }
    }

    [System.Diagnostics.CodeAnalysis.DoesNotReturn]
    private static void ThrowOutOfRange() =>
        throw new ArgumentOutOfRangeException("length", "The range lies outside the secret.");
}

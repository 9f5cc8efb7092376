using System.Diagnostics;

namespace Encryption.Custom.Native.Memory;

/// <summary>
/// One secret of up to <see cref="ProtectedMemoryPool.MaxSecretLength"/> bytes in a protected slot (masked, locked
/// where the platform allows, see <c>docs/key-memory.md</c>), owned by exactly one object. Used for key material
/// derived inside the crypto layer (the AES round keys of the multi-chain encryptor), which must live under the
/// same rules as the DEK itself and no longer than its owner.
/// </summary>
/// <remarks>
/// Not thread-safe against <see cref="Dispose"/>: the owner disposes it only when no use can still run (the AEAD
/// context that owns it is used by one operation at a time). The finalizer wipes a slot whose owner never disposed.
/// </remarks>
[DebuggerDisplay("{ToString(),nq}")]
internal sealed class ProtectedSecret : IDisposable
{
    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private readonly ProtectedMemoryPool _pool;

    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private readonly SecretSlot _slot;

    private int _released;

    private ProtectedSecret(ProtectedMemoryPool pool, SecretSlot slot)
    {
        _pool = pool;
        _slot = slot;
    }

    /// <summary>The secret's length in bytes.</summary>
    public int Length => _slot.Length;

    /// <summary>What protects the stored bytes (for diagnostics and tests).</summary>
    public KeyMemoryProtection Protection => _slot.Protection;

    /// <summary>Whether the slot was wiped and returned.</summary>
    internal bool IsReleased => Volatile.Read(ref _released) != 0;

    /// <summary>Copies <paramref name="secret"/> (masked) into a new slot of <paramref name="pool"/>. The caller wipes its copy.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The secret is empty or longer than a slot.</exception>
    /// <exception cref="OutOfMemoryException">No memory could be mapped.</exception>
    public static ProtectedSecret Create(ReadOnlySpan<byte> secret, ProtectedMemoryPool pool)
    {
        ArgumentNullException.ThrowIfNull(pool);
        SecretSlot slot = pool.Allocate(secret.Length);
        try
        {
            slot.Store(secret);
            return new ProtectedSecret(pool, slot);
        }
        catch
        {
            pool.Free(slot);
            throw;
        }
    }

    /// <summary>Unmasks the whole secret into <paramref name="destination"/> (exactly <see cref="Length"/> bytes), which the caller wipes.</summary>
    /// <exception cref="ArgumentException"><paramref name="destination"/> has the wrong length.</exception>
    /// <exception cref="ObjectDisposedException">The secret was released.</exception>
    public void Reveal(Span<byte> destination)
    {
        ObjectDisposedException.ThrowIf(IsReleased, this);
        if (destination.Length != _slot.Length)
        {
            throw new ArgumentException("The destination must be exactly as long as the secret.", nameof(destination));
        }

        _slot.Reveal(0, destination);
    }

    /// <summary>Wipes the slot and returns it to the pool. Idempotent.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _released, 1) == 0)
        {
            _pool.Free(_slot);
            GC.SuppressFinalize(this);
        }
    }

    /// <summary>Shows the length and protection only, never secret bytes.</summary>
    public override string ToString() =>
        IsReleased ? "ProtectedSecret (released)" : $"ProtectedSecret ({Length} bytes, protection: {Protection})";

    /// <summary>Safety net for an owner that never disposed: unreachable means no use can still be running.</summary>
    ~ProtectedSecret()
    {
        if (Interlocked.Exchange(ref _released, 1) == 0)
        {
            _pool.Free(_slot);
        }
    }
}

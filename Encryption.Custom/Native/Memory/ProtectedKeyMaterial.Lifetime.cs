using Encryption.Custom.Keys;

namespace Encryption.Custom.Native.Memory;

/// <summary>
/// Lifetime: the material has exactly one owner, the <see cref="ProtectedDataEncryptionKey"/> built on it, whose
/// reference count (<see cref="DataEncryptionKey"/>) decides when no operation can still run; only then does it
/// dispose the material. The finalizer is the safety net for an owner that was never disposed.
/// </summary>
internal sealed partial class ProtectedKeyMaterial : IDisposable
{
    private int _released;

    /// <summary>Whether the memory was wiped and returned.</summary>
    internal bool IsReleased => Volatile.Read(ref _released) != 0;

    /// <summary>Wipes the memory and returns it to the pool. Idempotent; the owner calls it when no use can still run.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _released, 1) == 0)
        {
            ReleaseMemory();
            GC.SuppressFinalize(this);
        }
    }

    /// <summary>Safety net for an owner that never disposed: unreachable means no use can still be running.</summary>
    ~ProtectedKeyMaterial()
    {
        if (Interlocked.Exchange(ref _released, 1) == 0)
        {
            ReleaseMemory();
        }
    }

    // The pool wipes the slot before it can hand it out again.
    private void ReleaseMemory() => _pool.Free(_slot);

    private void ThrowIfReleased() => ObjectDisposedException.ThrowIf(IsReleased, this);
}

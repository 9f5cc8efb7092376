using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using Encryption.Custom.Keys;

namespace Encryption.Custom;

/// <summary>
/// The one owner of a key's lifetime (see <c>docs/key-memory.md</c>): a reference count in one atomic word, shaped
/// like <see cref="System.Runtime.InteropServices.SafeHandle"/>'s. The owner holds the first reference and gives it
/// up with <see cref="Dispose()"/>; each <see cref="DataEncryptionKeyLease"/> holds one more. The key's resources are
/// released by <see cref="Dispose(bool)"/> when the last reference goes, so an owner (a cache evicting the key) can
/// dispose it while operations still use it. Once the owner has disposed, no new reference can be taken.
/// </summary>
public abstract partial class DataEncryptionKey
{
    // Low 30 bits: references (the owner's and one per lease). Bit 30: the owner has disposed.
    private const int OwnerDisposedFlag = 1 << 30;
    private const int ReferenceMask = OwnerDisposedFlag - 1;

    private const string FinalizerGuardsLeases =
        "A subclass's finalizer stays armed while leases remain; finalization is suppressed when the last reference is released.";

    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private int _lifetime = 1;

    /// <summary>Whether the last reference is gone and the key's resources were released.</summary>
    internal bool IsReleased => (Volatile.Read(ref _lifetime) & ReferenceMask) == 0;

    /// <summary>
    /// Gives up the owner's reference. The key's resources (protected key memory, which is zeroed) are released now,
    /// or when the last operation using the key ends. Idempotent and thread-safe; afterwards the key can no longer be
    /// used by new operations.
    /// </summary>
    [SuppressMessage("Usage", "CA1816:Dispose methods should call SuppressFinalize", Justification = FinalizerGuardsLeases)]
    public void Dispose()
    {
        int current = Volatile.Read(ref _lifetime);
        while ((current & OwnerDisposedFlag) == 0)
        {
            int next = (current | OwnerDisposedFlag) - 1;
            int seen = Interlocked.CompareExchange(ref _lifetime, next, current);
            if (seen == current)
            {
                if ((next & ReferenceMask) == 0)
                {
                    Release();
                }

                return;
            }

            current = seen;
        }
    }

    /// <summary>
    /// Takes one reference (an interlocked compare-exchange); fails once the owner has disposed, even while other
    /// references remain, so that overlapping users cannot keep an evicted key alive forever.
    /// </summary>
    internal bool TryAddReference()
    {
        int current = Volatile.Read(ref _lifetime);
        while ((current & OwnerDisposedFlag) == 0)
        {
            int seen = Interlocked.CompareExchange(ref _lifetime, current + 1, current);
            if (seen == current)
            {
                return true;
            }

            current = seen;
        }

        return false;
    }

    /// <summary>Gives back a reference taken with <see cref="TryAddReference"/>; the last one releases the key.</summary>
    internal void ReleaseReference()
    {
        int remaining = Interlocked.Decrement(ref _lifetime) & ReferenceMask;
        Debug.Assert(remaining != ReferenceMask, "A reference was released twice.");
        if (remaining == 0)
        {
            Release();
        }
    }

    [SuppressMessage("Usage", "CA1816:Dispose methods should call SuppressFinalize", Justification = FinalizerGuardsLeases)]
    private void Release()
    {
        Dispose(disposing: true);
        GC.SuppressFinalize(this);
    }
}

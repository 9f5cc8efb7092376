using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;

namespace Encryption.Custom.Keys.Memory;

/// <summary>
/// Lifetime: the owner's reference plus one per live pin or running use, in one atomic word. Once the owner has
/// disposed, no new pin starts, so running operations drain and the memory is wiped when the count reaches zero.
/// </summary>
internal sealed partial class ProtectedKeyMaterial : IDisposable
{
    // Low 30 bits: references (the owner's, each pin's, each running Use*). Bit 30: the owner has disposed.
    private const int OwnerDisposedFlag = 1 << 30;
    private const int ReferenceMask = OwnerDisposedFlag - 1;

    private const string FinalizerGuardsPins =
        "The finalizer must stay armed after the owner disposes while pins remain: a leaked pin still gets the memory wiped.";

    private int _state = 1;

    /// <summary>Whether the memory was wiped and returned.</summary>
    internal bool IsReleased => (Volatile.Read(ref _state) & ReferenceMask) == 0;

    /// <summary>
    /// Called once when the memory has been wiped after the owner and every pin let go (not from the finalizer),
    /// so that whoever built keyed state from this material can free it at the same moment.
    /// </summary>
    internal Action? Released { get; set; }

    /// <summary>Test seam: sees the slot right after it is wiped, before the pool may hand it out again.</summary>
    internal Action<ReadOnlySpan<byte>>? ReleasedSlotObserver { get; set; }

    /// <summary>
    /// Keeps the material usable until the returned pin is disposed, even if the owner disposes meanwhile.
    /// Dispose the pin exactly once (copies of it share the one reference).
    /// </summary>
    /// <exception cref="ObjectDisposedException">The owner has disposed the material.</exception>
    public ProtectedKeyMaterialPin Pin()
    {
        AddReference(refuseAfterOwnerDisposed: true);
        return new ProtectedKeyMaterialPin(this);
    }

    /// <summary>Releases the owner's reference; the memory is wiped and returned once no pin remains. Idempotent.</summary>
    [SuppressMessage("Usage", "CA1816:Dispose methods should call SuppressFinalize", Justification = FinalizerGuardsPins)]
    public void Dispose()
    {
        int current = Volatile.Read(ref _state);
        while ((current & OwnerDisposedFlag) == 0)
        {
            int next = (current | OwnerDisposedFlag) - 1;
            int seen = Interlocked.CompareExchange(ref _state, next, current);
            if (seen == current)
            {
                if ((next & ReferenceMask) == 0)
                {
                    ReleaseMemory();
                }

                return;
            }

            current = seen;
        }
    }

    /// <summary>Safety net for an owner that never disposed, or a pin that was never disposed.</summary>
    ~ProtectedKeyMaterial()
    {
        // Unreachable means no pin or use can still be running, whatever the count says.
        if ((Interlocked.Exchange(ref _state, OwnerDisposedFlag) & ReferenceMask) != 0)
        {
            ReleaseMemory(fromFinalizer: true);
        }
    }

    /// <summary>Takes a reference for one use; a holder of a pin may still use the material after the owner disposed.</summary>
    internal void AddReference(bool refuseAfterOwnerDisposed = false)
    {
        int current = Volatile.Read(ref _state);
        while (true)
        {
            if ((current & ReferenceMask) == 0 || (refuseAfterOwnerDisposed && (current & OwnerDisposedFlag) != 0))
            {
                ThrowReleased();
            }

            int seen = Interlocked.CompareExchange(ref _state, current + 1, current);
            if (seen == current)
            {
                return;
            }

            current = seen;
        }
    }

    internal void ReleaseReference()
    {
        int remaining = Interlocked.Decrement(ref _state) & ReferenceMask;
        Debug.Assert(remaining != ReferenceMask, "A pin was disposed twice.");
        if (remaining == 0)
        {
            ReleaseMemory();
        }
    }

    [SuppressMessage("Usage", "CA1816:Dispose methods should call SuppressFinalize", Justification = FinalizerGuardsPins)]
    private void ReleaseMemory(bool fromFinalizer = false)
    {
        _slot.Wipe();
        ReleasedSlotObserver?.Invoke(_slot.StoredBytes);
        _pool.Free(_slot);
        GC.SuppressFinalize(this);

        // From the finalizer, dependents are unreachable too and finalize on their own.
        if (!fromFinalizer)
        {
            Released?.Invoke();
        }
    }

    [DoesNotReturn]
    private static void ThrowReleased() => throw new ObjectDisposedException(nameof(ProtectedKeyMaterial));
}

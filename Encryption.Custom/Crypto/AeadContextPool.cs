// Bounded pool of keyed AeadContexts for one AEAD_AES_256_CBC_HMAC_SHA256 instance (wire-format.md §1).
// Contexts hold key schedules and HMAC pad states (native heap for the OpenSSL backend). At most `capacity`
// idle contexts are kept; a miss creates one through the AeadKeySource, and a context coming back to a full
// pool is freed at once. Every context lives no longer than the pool: Dispose frees the idle ones, and ones in
// use are freed when their operation returns them.
// Ownership is exclusive: a context is taken out of a slot by compare-exchange, so only one thread ever uses or
// frees it; that is what makes Dispose during concurrent operations free of use-after-free.
using System.Diagnostics;

namespace Encryption.Custom.Crypto;

/// <summary>A lock-free, bounded set of idle keyed contexts with dispose-safe return.</summary>
internal sealed class AeadContextPool : IDisposable
{
    private readonly AeadBackend _backend;
    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private readonly AeadKeySource _keySource;
    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private readonly AeadContext?[] _slots;
    private int _disposed;
    private int _liveContexts;

    public AeadContextPool(AeadBackend backend, AeadKeySource keySource, int capacity)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(capacity);
        _backend = backend;
        _keySource = keySource;
        _slots = new AeadContext?[capacity];
    }

    /// <summary>How many idle contexts the pool keeps at most.</summary>
    public int Capacity => _slots.Length;

    /// <summary>Contexts created and not yet freed (idle plus in use): for tests and diagnostics.</summary>
    public int LiveContexts => Volatile.Read(ref _liveContexts);

    public bool IsDisposed => Volatile.Read(ref _disposed) != 0;

    /// <summary>Takes an idle context, or creates one on a miss. The caller owns it until <see cref="Return"/>.</summary>
    /// <exception cref="ObjectDisposedException">The pool was disposed.</exception>
    public AeadContext Rent()
    {
        ObjectDisposedException.ThrowIf(IsDisposed, this);

        AeadContext?[] slots = _slots;
        for (int i = 0; i < slots.Length; i++)
        {
            AeadContext? context = Volatile.Read(ref slots[i]);
            if (context is not null && Interlocked.CompareExchange(ref slots[i], null, context) == context)
            {
                return context;
            }
        }

        AeadContext created = _backend.CreateContext(_keySource);
        Interlocked.Increment(ref _liveContexts);
        return created;
    }

    /// <summary>
    /// Gives a rented context back. A context whose operation failed midway (<paramref name="reusable"/> false)
    /// may hold a half-finished message, so it is freed rather than reused.
    /// </summary>
    public void Return(AeadContext context, bool reusable)
    {
        if (!reusable || IsDisposed)
        {
            Free(context);
            return;
        }

        AeadContext?[] slots = _slots;
        for (int i = 0; i < slots.Length; i++)
        {
            if (Interlocked.CompareExchange(ref slots[i], context, null) is null)
            {
                // Dispose may have drained the slots just before the store above. Both sides use full fences
                // (compare-exchange here, exchange there), so at least one of them sees the other, and the
                // compare-exchange below makes sure only one of them frees the context.
                if (IsDisposed && Interlocked.CompareExchange(ref slots[i], null, context) == context)
                {
                    Free(context);
                }

                return;
            }
        }

        Free(context);
    }

    /// <summary>Frees every idle context; contexts still in use are freed when they are returned.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        AeadContext?[] slots = _slots;
        for (int i = 0; i < slots.Length; i++)
        {
            AeadContext? context = Interlocked.Exchange(ref slots[i], null);
            if (context is not null)
            {
                Free(context);
            }
        }
    }

    private void Free(AeadContext context)
    {
        context.Dispose();
        Interlocked.Decrement(ref _liveContexts);
    }
}

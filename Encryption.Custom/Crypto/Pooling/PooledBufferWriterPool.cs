namespace Encryption.Custom.Crypto.Pooling;

/// <summary>
/// A small lock-free cache of <see cref="PooledBufferWriter"/> instances so that per-call writers cost no
/// allocation after warm-up. The instances hold no array while cached.
/// </summary>
internal static class PooledBufferWriterPool
{
    private static readonly PooledBufferWriter?[] s_items = new PooledBufferWriter?[Math.Clamp(Environment.ProcessorCount * 2, 4, 64)];

    /// <summary>Takes a cached writer, or creates one when none is cached.</summary>
    public static PooledBufferWriter Rent()
    {
        PooledBufferWriter?[] items = s_items;
        for (int i = 0; i < items.Length; i++)
        {
            PooledBufferWriter? item = Interlocked.Exchange(ref items[i], null);
            if (item is not null)
            {
                return item;
            }
        }

        return new PooledBufferWriter();
    }

    /// <summary>Clears <paramref name="writer"/> (returning its array) and caches it when there is room.</summary>
    public static void Return(PooledBufferWriter writer)
    {
        writer.Dispose();
        PooledBufferWriter?[] items = s_items;
        for (int i = 0; i < items.Length; i++)
        {
            if (Interlocked.CompareExchange(ref items[i], writer, null) is null)
            {
                return;
            }
        }
    }
}

namespace Encryption.Custom.Performance.Tests.Allocation;

/// <summary>Counts the managed bytes one operation allocates on the calling thread once it is warm.</summary>
internal static class AllocationMeter
{
    /// <summary>
    /// Warms up, then runs <paramref name="rounds"/> rounds of <paramref name="operationsPerRound"/> operations and
    /// keeps the lowest per-operation figure: steady state is a round in which no pool had to refill (a collection
    /// triggered by other work may trim <c>ArrayPool</c> in between).
    /// </summary>
    public static (long BytesPerOperation, int Gen2Collections) Measure(Action operation, int operationsPerRound, int rounds)
    {
        for (int i = 0; i < operationsPerRound + 4; i++)
        {
            operation();
        }

        long best = long.MaxValue;
        int gen2Before = GC.CollectionCount(2);
        for (int round = 0; round < rounds; round++)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < operationsPerRound; i++)
            {
                operation();
            }

            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            best = Math.Min(best, allocated / operationsPerRound);
        }

        return (best, GC.CollectionCount(2) - gen2Before);
    }

    /// <summary>
    /// Observes a <see cref="ValueTask"/> that must already be complete: counting per thread needs the async
    /// overloads to finish synchronously (they do over memory streams and an encryptor answering from memory).
    /// </summary>
    /// <exception cref="InvalidOperationException">The operation went asynchronous.</exception>
    public static void Complete(ValueTask pending)
    {
        if (!pending.IsCompleted)
        {
            throw new InvalidOperationException("The operation did not complete synchronously; per-thread allocation counting would miss its continuation.");
        }

        pending.GetAwaiter().GetResult();
    }

    /// <inheritdoc cref="Complete(ValueTask)"/>
    public static T Complete<T>(ValueTask<T> pending)
    {
        if (!pending.IsCompleted)
        {
            throw new InvalidOperationException("The operation did not complete synchronously; per-thread allocation counting would miss its continuation.");
        }

        return pending.GetAwaiter().GetResult();
    }
}

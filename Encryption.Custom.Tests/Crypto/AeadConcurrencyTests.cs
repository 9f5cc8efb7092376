using System.Security.Cryptography;
using Encryption.Custom.Crypto;

namespace Encryption.Custom.Tests.Crypto;

/// <summary>One AEAD instance shared by many threads, including while it is being disposed.</summary>
public class AeadConcurrencyTests
{
    private const int ThreadCount = 8;

    public static TheoryData<AeadBackendKind> Backends => AeadBackends.All;

    [Theory]
    [MemberData(nameof(Backends))]
    public void ManyThreads_OneKey_EveryCellDecryptsEverywhere(AeadBackendKind backend)
    {
        byte[] root = RandomNumberGenerator.GetBytes(32);
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.FromRootKey(root));
        byte[][] shared = Enumerable.Range(0, 64).Select(i => RandomNumberGenerator.GetBytes(i * 37)).ToArray();
        byte[][] sharedCells = shared.Select(p => aead.Encrypt(p)).ToArray();
        var failures = new System.Collections.Concurrent.ConcurrentQueue<string>();

        Parallel.For(0, ThreadCount, new ParallelOptions { MaxDegreeOfParallelism = ThreadCount }, thread =>
        {
            var random = new Random(thread);
            byte[] plainText = new byte[3000];
            byte[] cell = new byte[AeadAes256CbcHmacSha256.GetCipherTextLength(plainText.Length)];
            byte[] output = new byte[plainText.Length + 16];
            for (int i = 0; i < 1500; i++)
            {
                int length = random.Next(plainText.Length + 1);
                random.NextBytes(plainText.AsSpan(0, length));
                int cellLength = AeadBackends.Encrypt(aead, deterministic: (i & 1) == 1, plainText.AsSpan(0, length), cell);
                int written = aead.Decrypt(cell.AsSpan(0, cellLength), output);
                if (written != length || !output.AsSpan(0, length).SequenceEqual(plainText.AsSpan(0, length)))
                {
                    failures.Enqueue($"thread {thread} round trip {i}");
                }

                // Cells written by other threads (and before any of them started) decrypt here too.
                int k = random.Next(sharedCells.Length);
                if (!aead.TryDecrypt(sharedCells[k], output, out written) || !output.AsSpan(0, written).SequenceEqual(shared[k]))
                {
                    failures.Enqueue($"thread {thread} shared cell {k}");
                }
            }
        });

        Assert.Empty(failures);
        Assert.InRange(aead.LiveContexts, 1, 8 + ThreadCount);
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void Dispose_DuringConcurrentUse_OperationsSucceedOrThrowObjectDisposedAndEveryContextIsFreed(AeadBackendKind backend)
    {
        for (int round = 0; round < 20; round++)
        {
            AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random(), maxIdleContexts: 4);
            var failures = new System.Collections.Concurrent.ConcurrentQueue<Exception>();
            int completed = 0;
            using var started = new CountdownEvent(ThreadCount);

            Thread[] threads = Enumerable.Range(0, ThreadCount).Select(t => new Thread(() =>
            {
                byte[] plainText = RandomNumberGenerator.GetBytes(50 + (t * 200));
                byte[] output = new byte[plainText.Length + 16];
                started.Signal();
                try
                {
                    while (true)
                    {
                        byte[] cell = aead.Encrypt(plainText);
                        int written = aead.Decrypt(cell, output);
                        if (!output.AsSpan(0, written).SequenceEqual(plainText))
                        {
                            failures.Enqueue(new InvalidOperationException("wrong plaintext"));
                        }

                        Interlocked.Increment(ref completed);
                    }
                }
                catch (ObjectDisposedException)
                {
                    // The expected way out once Dispose has run.
                }
                catch (Exception exception)
                {
                    failures.Enqueue(exception);
                }
            })).ToArray();

            foreach (Thread thread in threads)
            {
                thread.Start();
            }

            started.Wait(TestContext.Current.CancellationToken);
            SpinWait.SpinUntil(() => Volatile.Read(ref completed) > ThreadCount * 4, TimeSpan.FromSeconds(10));
            aead.Dispose();
            foreach (Thread thread in threads)
            {
                Assert.True(thread.Join(TimeSpan.FromSeconds(30)));
            }

            Assert.Empty(failures);
            Assert.Equal(0, aead.LiveContexts);
        }
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void ManyThreads_SmallPool_KeepsAtMostCapacityContextsAfterwards(AeadBackendKind backend)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random(), maxIdleContexts: 2);

        Parallel.For(0, ThreadCount * 50, new ParallelOptions { MaxDegreeOfParallelism = ThreadCount }, i =>
        {
            byte[] plainText = new byte[i];
            Assert.Equal(plainText, aead.Decrypt(aead.Encrypt(plainText)));
        });

        Assert.InRange(aead.LiveContexts, 1, 2);
    }
}

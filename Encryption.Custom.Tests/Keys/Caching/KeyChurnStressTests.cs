using System.Buffers;
using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Security.Cryptography;
using Encryption.Custom.Native.Memory;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.Cosmos.TestSupport;
using Encryption.Custom.Tests.Keys.TestSupport;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Keys.Caching;

/// <summary>
/// Several threads decrypt through the real processors, the real <see cref="CosmosEncryptor"/>, provider, DEK cache
/// and protected keys (a local key-wrap provider, the DEK container in memory) while the cached key keeps being
/// replaced. Eviction must never fail an operation, and no key memory may be left after dispose.
/// </summary>
/// <remarks>
/// Bounded by count and time. By default each case stops after <see cref="DefaultDecrypts"/> decrypts or
/// three seconds; set <c>ENCRYPTION_CUSTOM_KEY_CHURN_DECRYPTS</c> to run more decrypts per case (the
/// time bound then becomes ten minutes), e.g. 340000 for over a million across the three cases.
/// </remarks>
public sealed class KeyChurnStressTests(ITestOutputHelper output)
{
    private const string Mde = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;
    private const string CountVariable = "ENCRYPTION_CUSTOM_KEY_CHURN_DECRYPTS";
    private const int DefaultDecrypts = 60_000;
    private const int Workers = 4;
    private static readonly TimeSpan s_defaultDuration = TimeSpan.FromSeconds(3);

    private static readonly byte[] s_document = "{\"id\":\"1\",\"pk\":\"p\",\"ssn\":\"123-45-6789\",\"n\":42,\"tags\":[\"a\",\"b\"]}"u8.ToArray();

    public enum Churn
    {
        /// <summary>The key-wrap provider allows no caching: every use asks again.</summary>
        TimeToLiveZero,

        /// <summary>Unwrapped keys live one millisecond.</summary>
        TimeToLiveOneMillisecond,

        /// <summary>The DEK is rewrapped over and over (each rewrap evicts the cached key).</summary>
        Rewrap,
    }

    [Theory]
    [InlineData(Churn.TimeToLiveZero)]
    [InlineData(Churn.TimeToLiveOneMillisecond)]
    [InlineData(Churn.Rewrap)]
    public async Task Decrypt_WhileTheCachedKeyChurns_NeverFailsAndLeavesNoKeyMemory(Churn churn)
    {
        (int maxDecrypts, TimeSpan maxDuration) = Bounds();
        using var pool = new ProtectedMemoryPool();
        TimeSpan timeToLive = churn switch
        {
            Churn.TimeToLiveZero => TimeSpan.Zero,
            Churn.TimeToLiveOneMillisecond => TimeSpan.FromMilliseconds(1),
            _ => TimeSpan.FromHours(2),
        };

        using var wrap = new LocalKeyWrapProvider(new LocalKeyWrapProviderOptions { DataEncryptionKeyCacheTimeToLive = timeToLive });
        wrap.AddAesKey("kek1", RandomNumberGenerator.GetBytes(32));
        wrap.AddAesKey("kek2", RandomNumberGenerator.GetBytes(32));
        var provider = new CosmosDataEncryptionKeyProvider(wrap, new CosmosDataEncryptionKeyProviderOptions(), new PoolKeyFactory(pool));
        provider.Initialize(new FakeContainer("keys", "/id"));
        await provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek(1), cancellationToken: TestContext.Current.CancellationToken);
        var encryptor = new CosmosEncryptor(provider);

        EncryptionProcessor[] processors = [new StreamProcessor(), new NewtonsoftProcessor()];
        var options = new EncryptionOptions { DataEncryptionKeyId = "dek1", PathsToEncrypt = ["/ssn", "/n", "/tags"] };
        byte[][] encrypted = new byte[processors.Length][];
        byte[][] expected = new byte[processors.Length][];
        for (int i = 0; i < processors.Length; i++)
        {
            var writer = new ArrayBufferWriter<byte>();
            await processors[i].EncryptAsync(new MemoryStream(s_document), writer, encryptor, options, TestContext.Current.CancellationToken);
            encrypted[i] = writer.WrittenSpan.ToArray();
            expected[i] = processors[i].Decrypt(encrypted[i], encryptor);
        }

        var failures = new ConcurrentDictionary<string, int>(StringComparer.Ordinal);
        Exception? firstFailure = null;
        long decrypts = 0;
        long rewraps = 0;
        var stopwatch = Stopwatch.StartNew();
        bool Done() => Interlocked.Read(ref decrypts) >= maxDecrypts || stopwatch.Elapsed >= maxDuration;

        Thread[] threads = [.. Enumerable.Range(0, Workers).Select(worker => new Thread(() =>
        {
            var writer = new ArrayBufferWriter<byte>();
            for (int call = worker; !Done(); call++)
            {
                int kind = call % processors.Length;
                writer.Clear();
                try
                {
                    // Alternate the synchronous and asynchronous paths of both processors.
                    if ((call / processors.Length) % 2 == 0)
                    {
                        processors[kind].Decrypt(encrypted[kind], writer, encryptor);
                    }
                    else
                    {
                        processors[kind].DecryptAsync(new MemoryStream(encrypted[kind]), writer, encryptor).AsTask().GetAwaiter().GetResult();
                    }

                    if (!writer.WrittenSpan.SequenceEqual(expected[kind]))
                    {
                        throw new InvalidDataException("A decrypt produced the wrong document.");
                    }
                }
                catch (Exception exception)
                {
                    failures.AddOrUpdate(exception.GetType().Name, 1, static (_, count) => count + 1);
                    Interlocked.CompareExchange(ref firstFailure, exception, null);
                }

                Interlocked.Increment(ref decrypts);
            }
        })
        { IsBackground = true, Name = $"churn-{worker}" })];

        foreach (Thread thread in threads)
        {
            thread.Start();
        }

        if (churn == Churn.Rewrap)
        {
            for (int round = 0; !Done(); round++)
            {
                await provider.DataEncryptionKeyContainer.RewrapDataEncryptionKeyAsync("dek1", Kek(2 - (round % 2)), cancellationToken: TestContext.Current.CancellationToken);
                rewraps++;
            }
        }

        foreach (Thread thread in threads)
        {
            thread.Join();
        }

        provider.Dispose();
        int slotsLeft = await WaitForKeyMemoryToDrainAsync(pool);

        string failureSummary = failures.IsEmpty ? "none" : string.Join(", ", failures.Select(pair => $"{pair.Key} x{pair.Value}"));
        output.WriteLine(string.Create(
            CultureInfo.InvariantCulture,
            $"{churn}: {decrypts} decrypts in {stopwatch.Elapsed.TotalSeconds:F2} s by {Workers} threads ({rewraps} rewraps); failures: {failureSummary}; key slots left: {slotsLeft}"));
        Assert.True(failures.IsEmpty, $"{failureSummary} in {decrypts} decrypts; first: {firstFailure}");
        Assert.Equal(0, slotsLeft);
    }

    private static EncryptionKeyWrapMetadata Kek(int number) => LocalKeyWrapProvider.CreateMetadata("kek" + number, KeyWrapAlgorithm.AesKeyWrap);

    private static (int MaxDecrypts, TimeSpan MaxDuration) Bounds() =>
        int.TryParse(Environment.GetEnvironmentVariable(CountVariable), NumberStyles.None, CultureInfo.InvariantCulture, out int count) && count > 0
            ? (count, TimeSpan.FromMinutes(10))
            : (DefaultDecrypts, s_defaultDuration);

    /// <summary>Background loads that were in flight when the provider was disposed finish on the thread pool; wait (bounded) for them.</summary>
    private static async Task<int> WaitForKeyMemoryToDrainAsync(ProtectedMemoryPool pool)
    {
        for (int attempt = 0; attempt < 500 && pool.SlotsInUse != 0; attempt++)
        {
            await Task.Delay(10, TestContext.Current.CancellationToken);
        }

        return pool.SlotsInUse;
    }

    /// <summary>The production key type, in a private pool so that what is left after dispose can be counted.</summary>
    private sealed class PoolKeyFactory(ProtectedMemoryPool pool) : DataEncryptionKeyFactory
    {
        public override DataEncryptionKey Create(Span<byte> rawKey, string encryptionAlgorithm) =>
            ProtectedDataEncryptionKey.CreateProtected(rawKey, encryptionAlgorithm, pool);
    }
}

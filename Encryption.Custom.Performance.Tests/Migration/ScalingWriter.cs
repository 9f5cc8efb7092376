using System.Collections.Concurrent;
using System.Globalization;
using System.Text;
using System.Text.Json;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Performance.Tests.Migration;

/// <summary>
/// The application during a scaling run (<c>MigrationScaling --writer</c>): a few writers that upsert documents of
/// the seeded shape through the encryption container with the rollout's policy (writes encrypted, reads either), each
/// a new salary, until stopped; then every document they wrote is read back under the final policy and must hold its
/// last write (an update the job lost, by replacing a document with an older version, shows as another salary).
/// Each writer owns the documents whose number is its index modulo the writer count, so the last write of a
/// document is well defined.
/// </summary>
internal sealed class ScalingWriter(Container raw, CosmosEncryptor encryptor, ContainerEncryptionPolicy target, int documents)
{
    private const int Writers = 4;
    private readonly ConcurrentDictionary<int, long> _lastSalary = new();
    private long _writes;

    public long Writes => Interlocked.Read(ref _writes);

    /// <summary>Writes until <paramref name="cancellationToken"/> is cancelled; a write in flight then completes or is not counted.</summary>
    public Task RunAsync(CancellationToken cancellationToken)
    {
        var rollout = new ContainerEncryptionPolicy(target.DataEncryptionKeyId, target.IncludedPaths)
        {
            PlaintextPolicy = PlaintextPolicy.WriteEncryptedReadBoth,
        };
        Container writerView = raw.WithEncryptor(encryptor, new EncryptionContainerOptions { Policy = rollout });
        return Task.WhenAll(Enumerable.Range(0, Writers).Select(writer => Task.Run(() => WriteAsync(writerView, writer, cancellationToken), CancellationToken.None)));
    }

    /// <summary>How many of the written documents do not hold their last write (0 expected).</summary>
    public async Task<(int Written, int Lost)> CheckAsync()
    {
        Container reader = raw.WithEncryptor(encryptor, new EncryptionContainerOptions { Policy = target });
        int lost = 0;
        using var parallelism = new SemaphoreSlim(32);
        await Task.WhenAll(_lastSalary.Select(async pair =>
        {
            await parallelism.WaitAsync().ConfigureAwait(false);
            try
            {
                (string id, string pk) = Key(pair.Key);
                using ResponseMessage read = await reader.ReadItemStreamAsync(id, new PartitionKey(pk)).ConfigureAwait(false);
                read.EnsureSuccessStatusCode();
                using JsonDocument document = await JsonDocument.ParseAsync(read.Content).ConfigureAwait(false);
                if (document.RootElement.GetProperty("salary").GetInt64() != pair.Value)
                {
                    Interlocked.Increment(ref lost);
                }
            }
            finally
            {
                parallelism.Release();
            }
        })).ConfigureAwait(false);
        return (_lastSalary.Count, lost);
    }

    private async Task WriteAsync(Container writerView, int writer, CancellationToken cancellationToken)
    {
        var random = new Random(17 + writer);
        string filler = new('y', 300);
        while (!cancellationToken.IsCancellationRequested)
        {
            int index = (random.Next(documents / Writers) * Writers) + writer;
            if (index >= documents)
            {
                continue;
            }

            long salary = 1_000_000 + Interlocked.Increment(ref _writes);
            (string id, string pk) = Key(index);
            string json = string.Create(CultureInfo.InvariantCulture,
                $$"""{"id":"{{id}}","pk":"{{pk}}","ssn":"987-65-{{salary % 10000:D4}}","salary":{{salary}},"profile":{"street":"{{filler}}","city":"Shelbyville"},"notes":"{{filler}}"}""");
            using var body = new MemoryStream(Encoding.UTF8.GetBytes(json));
            try
            {
                using ResponseMessage written = await writerView.UpsertItemStreamAsync(body, new PartitionKey(pk), cancellationToken: cancellationToken).ConfigureAwait(false);
                written.EnsureSuccessStatusCode();
                _lastSalary[index] = salary;
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                // Cancelled in flight: it may have landed. Not checked: the document's recorded last write is the one
                // before it, so a landed write would read as lost; the check reads only what was confirmed.
                _lastSalary.TryRemove(index, out _);
                return;
            }
        }
    }

    // The id and partition key of document number index, as MigrationScaling seeds it and the writers update it.
    public static (string Id, string PartitionKey) Key(int index) =>
        ("d" + index.ToString(CultureInfo.InvariantCulture), "p" + (index % 512).ToString(CultureInfo.InvariantCulture));
}

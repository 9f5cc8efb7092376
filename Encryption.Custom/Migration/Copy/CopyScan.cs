using System.Net;
using Encryption.Custom.Cosmos.Streams;
using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Json.Inspection;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Migration.Copy;

/// <summary>
/// The copy's status and the copy job's verification: the target container scanned against the target policy
/// (<see cref="StatusScan"/>, so "in the target state" means what it means for the in-place job), then every source
/// document decrypted through the source policy and looked up in the target through the target's encrypting
/// container by its plaintext id and partition key, decrypted and compared (<see cref="PlaintextComparison"/>).
/// </summary>
/// <remarks>
/// Looking each document up, rather than matching two scans by id, keeps memory flat whatever the container's size
/// and never compares a stored target id with a source id (an encrypted id differs from the plaintext one; the
/// encryption container maps it). It costs a point read per source document on top of one read of each container.
/// </remarks>
internal static class CopyScan
{
    private const string Query = "SELECT * FROM c";

    /// <param name="ends">The copy's ends (their source, partition key paths and target state set).</param>
    /// <param name="budget">The budget to wait on and charge, or <see langword="null"/>.</param>
    /// <param name="isExplained">Whether a source document is already a reported failure; <see langword="null"/> for the status query.</param>
    /// <param name="outstanding">Receives source documents to copy again (at most <see cref="StatusScan.MaxOutstanding"/>), or <see langword="null"/>.</param>
    /// <param name="parallelism">Lookups at once.</param>
    /// <param name="time">The clock of the pauses before a failed request is sent again.</param>
    /// <param name="cancellationToken">Cancels the scan.</param>
    /// <returns>The status, and how many source documents are not in the target as they should be and not explained.</returns>
    /// <exception cref="CosmosException">The service refused a query or a lookup for good.</exception>
    public static async Task<(EncryptionCopyStatus Status, long Unexplained)> RunAsync(
        CopyEnds ends,
        RequestUnitBudget? budget,
        Func<StoredDocument, bool>? isExplained,
        List<StoredDocument>? outstanding,
        int parallelism,
        TimeProvider time,
        CancellationToken cancellationToken)
    {
        (EncryptionMigrationStatus targetStatus, _) = await StatusScan.RunAsync(
            ends.Target, ends.TargetState, EncryptionProcessorOptions.MaxAllowedDepth, budget, unexplained: null, cancellationToken, time).ConfigureAwait(false);
        var tally = new Tally(isExplained, outstanding);
        using var iterator = ResumableQueryIterator.Over(ends.Source, Query);
        while (iterator.HasMoreResults)
        {
            using ResponseMessage response = await iterator.ReadNextSettledAsync(budget, tally.Charge, time, cancellationToken).ConfigureAwait(false);
            response.EnsureSuccessStatusCode();
            using var copy = new MemoryStream();
            await response.Content.CopyToAsync(copy, cancellationToken).ConfigureAwait(false);
            List<StoredDocument> documents = Documents(copy.GetBuffer().AsSpan(0, (int)copy.Length), ends.SourcePartitionKeyPaths, tally);
            await Parallel.ForEachAsync(
                documents,
                new ParallelOptions { MaxDegreeOfParallelism = parallelism, CancellationToken = cancellationToken },
                async (document, token) => tally.Add(document, await CompareAsync(document, ends, budget, tally, time, token).ConfigureAwait(false))).ConfigureAwait(false);
        }

        return (tally.ToStatus(targetStatus), tally.Unexplained);
    }

    private static List<StoredDocument> Documents(ReadOnlySpan<byte> page, IReadOnlyList<string> partitionKeyPaths, Tally tally)
    {
        var documents = new List<StoredDocument>();
        foreach (Range range in FeedPageDocuments.Split(page, EncryptionProcessorOptions.MaxAllowedDepth))
        {
            if (StoredDocument.Read(page[range].ToArray(), partitionKeyPaths, null) is { } document)
            {
                documents.Add(document);
            }
            else
            {
                // Not addressable (no string id): neither the copy nor anyone else can copy it.
                tally.Add(null, Comparison.Unreadable);
            }
        }

        return documents;
    }

    // The source document decrypted as the copy decrypts it, its copy looked up and decrypted through the target view.
    private static async Task<Comparison> CompareAsync(StoredDocument document, CopyEnds ends, RequestUnitBudget? budget, Tally tally, TimeProvider time, CancellationToken cancellationToken)
    {
        PooledContentStream plaintext;
        try
        {
            plaintext = await ends.DecryptSourceAsync(document.Content, cancellationToken).ConfigureAwait(false);
        }
        catch (EncryptionException)
        {
            return Comparison.Unreadable;
        }

        using (plaintext)
        {
            (string? id, PartitionKey partitionKey) = StoredDocument.ReadKey(plaintext.Content.Span, ends.TargetPartitionKeyPaths);
            if (id is null)
            {
                return Comparison.Unreadable;
            }

            ResponseMessage response;
            try
            {
                response = await SettledRequests.SendAsync(
                    token => ends.TargetView.ReadItemStreamAsync(id, partitionKey, cancellationToken: token),
                    budget,
                    tally.Charge,
                    time,
                    cancellationToken).ConfigureAwait(false);
            }
            catch (EncryptionException)
            {
                // The target holds something under this id the target policy cannot read: copying again replaces it.
                return Comparison.Different;
            }

            using (response)
            {
                if (response.StatusCode == HttpStatusCode.NotFound)
                {
                    return Comparison.Missing;
                }

                response.EnsureSuccessStatusCode();
                PooledBufferWriter stored = PooledBufferWriterPool.Rent();
                try
                {
                    await stored.AppendFromStreamAsync(response.Content, int.MaxValue, cancellationToken).ConfigureAwait(false);
                    return PlaintextComparison.SameDocument(plaintext.Content.Span, stored.WrittenSpan) ? Comparison.Same : Comparison.Different;
                }
                catch (EncryptionException)
                {
                    return Comparison.Different;
                }
                finally
                {
                    PooledBufferWriterPool.Return(stored);
                }
            }
        }
    }

    private enum Comparison
    {
        Same,
        Missing,
        Different,
        Unreadable,
    }

    private sealed class Tally(Func<StoredDocument, bool>? isExplained, List<StoredDocument>? outstanding)
    {
        private readonly object _gate = new();
        private long _total;
        private long _same;
        private long _missing;
        private long _different;
        private long _unreadable;
        private double _requestUnits;

        public long Unexplained { get; private set; }

        public void Charge(double requestCharge)
        {
            lock (_gate)
            {
                _requestUnits += requestCharge;
            }
        }

        public void Add(StoredDocument? document, Comparison comparison)
        {
            lock (_gate)
            {
                _total++;
                switch (comparison)
                {
                    case Comparison.Same:
                        _same++;
                        return;
                    case Comparison.Missing:
                        _missing++;
                        break;
                    case Comparison.Different:
                        _different++;
                        break;
                    default:
                        _unreadable++;
                        break;
                }

                if (isExplained is not null && (document is null || !isExplained(document)))
                {
                    Unexplained++;
                    if (document is not null && outstanding is { Count: < StatusScan.MaxOutstanding } list)
                    {
                        list.Add(document);
                    }
                }
            }
        }

        public EncryptionCopyStatus ToStatus(EncryptionMigrationStatus target) =>
            new(_total, _same, _missing, _different, _unreadable, target, _requestUnits + target.RequestUnits);
    }
}

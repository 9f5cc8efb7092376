using System.Net;
using Encryption.Custom.Json.Inspection;
using Encryption.Custom.Keys;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Migration;

/// <summary>
/// The status query: reads every document of the container (a cross-partition <c>SELECT * FROM c</c>, stream by
/// stream) and classifies each with <see cref="MigrationTarget.Classify(Json.Inspection.DocumentInspection)"/>, so it agrees with the job. It costs about
/// one read of the container in request units; with a target that has an encryptor, the values of documents
/// otherwise in the target state are decrypted in memory to check their encryption type (nothing is written).
/// </summary>
internal static class StatusScan
{
    private const string Query = "SELECT * FROM c";

    /// <summary>The most unexplained documents one scan hands back to be migrated (the rest wait for the next scan): bounds its memory.</summary>
    public const int MaxOutstanding = 10_000;

    /// <param name="container">The raw container.</param>
    /// <param name="target">The target state.</param>
    /// <param name="maxDepth">The deepest nesting accepted.</param>
    /// <param name="budget">The budget to wait on and charge, or <see langword="null"/>.</param>
    /// <param name="unexplained">
    /// For documents outside the target state: how to tell whether each is already known (a reported failure). With
    /// it, the second result counts the documents outside the target state that are not; without it, it is 0.
    /// </param>
    /// <param name="cancellationToken">Cancels the scan.</param>
    /// <param name="time">The clock of the pauses before a failed page is asked for again (default the system's).</param>
    /// <exception cref="CosmosException">The service refused the query.</exception>
    public static Task<(EncryptionMigrationStatus Status, long Unexplained)> RunAsync(
        Container container,
        MigrationTarget target,
        int maxDepth,
        RequestUnitBudget? budget,
        UnexplainedSearch? unexplained,
        CancellationToken cancellationToken,
        TimeProvider? time = null) =>
        RunAsync((container, null), target, maxDepth, budget, unexplained, time ?? TimeProvider.System, cancellationToken);

    /// <summary>As the other overload, over one feed range of the container (<paramref name="scope"/>'s range) or all of it (null).</summary>
    public static async Task<(EncryptionMigrationStatus Status, long Unexplained)> RunAsync(
        (Container Container, FeedRange? Range) scope,
        MigrationTarget target,
        int maxDepth,
        RequestUnitBudget? budget,
        UnexplainedSearch? unexplained,
        TimeProvider time,
        CancellationToken cancellationToken)
    {
        var tally = new Tally { ChecksEncryptionTypes = target.ChecksEncryptionTypes, Search = unexplained };
        using var iterator = ResumableQueryIterator.Over(scope.Container, Query, scope.Range);
        while (iterator.HasMoreResults)
        {
            // A failed page is asked for again after a pause, from the last page received (ResumableQueryIterator).
            using ResponseMessage response = await iterator.ReadNextSettledAsync(budget, charge => tally.RequestUnits += charge, time, cancellationToken).ConfigureAwait(false);
            response.EnsureSuccessStatusCode();
            using var copy = new MemoryStream();
            await response.Content.CopyToAsync(copy, cancellationToken).ConfigureAwait(false);
            using DataEncryptionKeyLease checkKey = await target.LeaseCheckKeyAsync(cancellationToken).ConfigureAwait(false);
            tally.AddPage(copy.GetBuffer().AsSpan(0, (int)copy.Length), target, checkKey, maxDepth);
        }

        return (tally.ToStatus(), tally.Unexplained);
    }

    private sealed class Tally
    {
        private readonly Dictionary<string, long> _byKey = new(StringComparer.Ordinal);
        private readonly Dictionary<int, long> _byFormat = [];
        private long _total;
        private long _inTarget;
        private long _unencrypted;
        private long _plaintext;
        private long _otherPaths;
        private long _unlistedCipherText;
        private long _staleQueryTokens;
        private long _unreadable;

        public double RequestUnits { get; set; }

        public bool ChecksEncryptionTypes { get; init; }

        public long Unexplained { get; private set; }

        public UnexplainedSearch? Search { get; init; }

        public void AddPage(ReadOnlySpan<byte> page, MigrationTarget target, in DataEncryptionKeyLease checkKey, int maxDepth)
        {
            foreach (Range range in FeedPageDocuments.Split(page, maxDepth))
            {
                ReadOnlySpan<byte> content = page[range];
                _total++;
                DocumentState state;
                try
                {
                    state = target.Classify(content, checkKey);
                }
                catch (EncryptionException)
                {
                    _unreadable++;
                    CountOutside(content);
                    continue;
                }

                Add(state);
                if (!state.InTarget)
                {
                    CountOutside(content);
                }
            }
        }

        public EncryptionMigrationStatus ToStatus() =>
            new(_total, _inTarget, _byKey, _unencrypted, _plaintext, _otherPaths, _unreadable, RequestUnits, ChecksEncryptionTypes) { DocumentsWithUnlistedCipherText = _unlistedCipherText, DocumentsWithStaleQueryTokens = _staleQueryTokens, DocumentsByFormatVersion = _byFormat };

        private void Add(DocumentState state)
        {
            if (state.InTarget)
            {
                _inTarget++;
            }

            if (state.Encrypted)
            {
                _byKey[state.KeyId!] = _byKey.GetValueOrDefault(state.KeyId!) + 1;
                _byFormat[state.FormatVersion] = _byFormat.GetValueOrDefault(state.FormatVersion) + 1;
            }
            else
            {
                _unencrypted++;
            }

            if (state.HasPlaintext)
            {
                _plaintext++;
            }

            if (state.HasOtherPaths)
            {
                _otherPaths++;
            }

            if (state.HasUnlistedCipherText)
            {
                _unlistedCipherText++;
            }

            if (state.HasStaleQueryTokens)
            {
                _staleQueryTokens++;
            }
        }

        private void CountOutside(ReadOnlySpan<byte> content)
        {
            if (Search is not { } search)
            {
                return;
            }

            StoredDocument? document = StoredDocument.Read(content.ToArray(), search.PartitionKeyPaths, null);
            if (document is null || !search.IsExplained(document))
            {
                Unexplained++;
                if (document is not null && search.Outstanding is { Count: < MaxOutstanding } list)
                {
                    list.Add(document);
                }
            }
        }
    }
}

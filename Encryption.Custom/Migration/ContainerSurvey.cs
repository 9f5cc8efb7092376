using System.Text;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Migration;

/// <summary>
/// What a container holds before a migration touches it: documents per DEK, and per encrypted path how many
/// documents encrypt it, deterministically or randomized. A migration's target is compared with it
/// (<see cref="TargetComparison"/>) so that a run that would decrypt a path, or change how one is encrypted, is
/// refused before its first write. Reads every document once (<c>SELECT * FROM c</c>) and writes nothing.
/// </summary>
/// <remarks>
/// The encryption type is not in the metadata, nor in the cell: for each document under a key the survey was given
/// (the key ids given to <see cref="RunAsync"/>), each value is decrypted in memory and its deterministic IV
/// recomputed, as <see cref="MigrationTarget"/> does for the target state. Documents under other keys, or under a key
/// that cannot be had, count with an unknown type: a migration cannot decrypt those either, so it reports them and
/// never changes their type. (The tool proves its keys before the survey, so that a missing key fails at once.)
/// </remarks>
internal sealed class ContainerSurvey
{
    private const string Query = "SELECT * FROM c";

    private readonly Dictionary<string, long> _byKey = new(StringComparer.Ordinal);
    private readonly Dictionary<string, PathUse> _byPath = new(StringComparer.Ordinal);

    private ContainerSurvey()
    {
    }

    /// <summary>Documents read.</summary>
    public long TotalDocuments { get; private set; }

    /// <summary>Documents without encryption metadata.</summary>
    public long UnencryptedDocuments { get; private set; }

    /// <summary>Documents whose metadata cannot be read.</summary>
    public long UnreadableDocuments { get; private set; }

    /// <summary>Request units the survey was charged.</summary>
    public double RequestUnits { get; private set; }

    /// <summary>Encrypted documents per DEK id.</summary>
    public IReadOnlyDictionary<string, long> DocumentsByDataEncryptionKeyId => _byKey;

    /// <summary>Per encrypted path (<c>/name</c>): the documents that encrypt it, by encryption type.</summary>
    public IReadOnlyDictionary<string, PathUse> Paths => _byPath;

    /// <summary>Surveys <paramref name="container"/>.</summary>
    /// <param name="container">The raw container.</param>
    /// <param name="encryptor">The keys to check encryption types with, or <see langword="null"/> to leave them unknown.</param>
    /// <param name="keyIds">The DEKs whose documents' encryption types are checked (those the migration may read).</param>
    /// <param name="maxDepth">The deepest nesting accepted.</param>
    /// <param name="budget">The migration's throughput budget each page waits for and is charged to, or <see langword="null"/>.</param>
    /// <param name="time">The clock transient failures are backed off by.</param>
    /// <param name="cancellationToken">Cancels the survey.</param>
    /// <exception cref="CosmosException">The service refused the query.</exception>
    public static async Task<ContainerSurvey> RunAsync(
        Container container, Encryptor? encryptor, IReadOnlyCollection<string> keyIds, int maxDepth, RequestUnitBudget? budget, TimeProvider time, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(time);
        ArgumentNullException.ThrowIfNull(container);
        ArgumentNullException.ThrowIfNull(keyIds);
        var survey = new ContainerSurvey();
        var keys = new Dictionary<string, DataEncryptionKeyLease>(StringComparer.Ordinal);
        var unavailable = new HashSet<string>(StringComparer.Ordinal);
        int transientAttempts = 0;
        try
        {
            using var iterator = ResumableQueryIterator.Over(container, Query);
            while (iterator.HasMoreResults)
            {
                if (budget is not null)
                {
                    await budget.WaitAsync(cancellationToken).ConfigureAwait(false);
                }

                using ResponseMessage response = await iterator.ReadNextAsync(cancellationToken).ConfigureAwait(false);
                survey.RequestUnits += response.Headers.RequestCharge;
                budget?.Charge(response.Headers.RequestCharge);

                // A failed page is asked for again after a pause, from the last page received (ResumableQueryIterator).
                if (TransientFailures.IsTransient(response.StatusCode))
                {
                    if (response.StatusCode == System.Net.HttpStatusCode.TooManyRequests)
                    {
                        budget?.Throttled(response.Headers);
                    }

                    await Task.Delay(TransientFailures.Delay(transientAttempts++), time, cancellationToken).ConfigureAwait(false);
                    continue;
                }

                transientAttempts = 0;
                response.EnsureSuccessStatusCode();
                using var copy = new MemoryStream();
                await response.Content.CopyToAsync(copy, cancellationToken).ConfigureAwait(false);
                byte[] page = copy.GetBuffer();
                int length = (int)copy.Length;
                if (encryptor is not null)
                {
                    foreach ((string id, string algorithm) in KeysToLease(page.AsSpan(0, length), keyIds, keys, unavailable, maxDepth))
                    {
                        try
                        {
                            keys[id] = await encryptor.LeaseEncryptionKeyAsync(id, algorithm, cancellationToken).ConfigureAwait(false);
                        }
                        catch (EncryptionException)
                        {
                            // Its documents cannot be rewritten either (each is reported by the job): their type is unknown here.
                            unavailable.Add(id);
                        }
                    }
                }

                survey.AddPage(page.AsSpan(0, length), keys, maxDepth);
            }
        }
        finally
        {
            foreach (DataEncryptionKeyLease lease in keys.Values)
            {
                lease.Dispose();
            }
        }

        return survey;
    }

    // The keys of this page's documents that the survey checks and does not hold yet.
    private static List<(string Id, string Algorithm)> KeysToLease(
        ReadOnlySpan<byte> page, IReadOnlyCollection<string> keyIds, Dictionary<string, DataEncryptionKeyLease> held, HashSet<string> unavailable, int maxDepth)
    {
        var wanted = new List<(string, string)>();
        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            DocumentScanner.ScanFeedPage(page, scan, maxDepth);
            for (int i = 0; i < scan.DocumentCount; i++)
            {
                ref DocumentRecord record = ref scan.Documents[i];
                if (IsChecked(page, scan, ref record, keyIds) && !held.ContainsKey(record.KeyId!) && !unavailable.Contains(record.KeyId!))
                {
                    string id = record.KeyId!;
                    if (!wanted.Exists(w => w.Item1 == id))
                    {
                        wanted.Add((id, record.Algorithm!));
                    }
                }
            }
        }
        finally
        {
            DecryptionScan.Return(scan);
        }

        return wanted;
    }

    // Encrypted per property (format 3, whose cells can say deterministic or randomized) under a key to check.
    private static bool IsChecked(ReadOnlySpan<byte> page, DecryptionScan scan, ref DocumentRecord record, IReadOnlyCollection<string> keyIds)
    {
        try
        {
            return EnvelopeReader.Prepare(page, scan, ref record)
                && record.Format == EnvelopeFormat.PerProperty
                && keyIds.Contains(record.KeyId!);
        }
        catch (EncryptionException)
        {
            return false;
        }
    }

    private void AddPage(ReadOnlySpan<byte> page, Dictionary<string, DataEncryptionKeyLease> keys, int maxDepth)
    {
        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            DocumentScanner.ScanFeedPage(page, scan, maxDepth);
            for (int i = 0; i < scan.DocumentCount; i++)
            {
                TotalDocuments++;
                ref DocumentRecord record = ref scan.Documents[i];
                bool encrypted;
                try
                {
                    encrypted = EnvelopeReader.Prepare(page, scan, ref record);
                }
                catch (EncryptionException)
                {
                    UnreadableDocuments++;
                    continue;
                }

                if (!encrypted)
                {
                    UnencryptedDocuments++;
                    continue;
                }

                _byKey[record.KeyId!] = _byKey.GetValueOrDefault(record.KeyId!) + 1;
                DataEncryptionKey? key = record.Format == EnvelopeFormat.PerProperty && keys.TryGetValue(record.KeyId!, out DataEncryptionKeyLease lease) ? lease.Key : null;
                AddPaths(page, scan, record, key);
            }
        }
        finally
        {
            DecryptionScan.Return(scan);
        }
    }

    private void AddPaths(ReadOnlySpan<byte> page, DecryptionScan scan, in DocumentRecord record, DataEncryptionKey? key)
    {
        for (int p = 0; p < scan.PathCount; p++)
        {
            ref readonly PathRecord path = ref scan.Paths[p];
            ReadOnlySpan<byte> name = scan.GetPathName(path);
            string policyPath = "/" + Encoding.UTF8.GetString(name);
            PathUse use = _byPath.GetValueOrDefault(policyPath);
            bool? deterministic = null;
            if (key is not null && path.PropertyIndex >= 0)
            {
                try
                {
                    deterministic = MigrationTarget.IsDeterministic(
                        page, scan.Properties[path.PropertyIndex], name, key, record.KeyId!, DeterministicIvContext.CreatePathPrefix(policyPath));
                }
                catch (EncryptionException)
                {
                    // A value that does not decrypt is the job's to report (it fails that document); its type is unknown.
                }
            }

            _byPath[policyPath] = deterministic switch
            {
                true => use with { Documents = use.Documents + 1, Deterministic = use.Deterministic + 1 },
                false => use with { Documents = use.Documents + 1, Randomized = use.Randomized + 1 },
                null => use with { Documents = use.Documents + 1 },
            };
        }
    }
}

/// <summary>How many documents encrypt one path, and how (the rest of <see cref="Documents"/> were not checked).</summary>
internal readonly record struct PathUse(long Documents, long Deterministic, long Randomized)
{
    /// <summary>Documents whose encryption type was not checked (no key given for them, or an absent value).</summary>
    public long Unchecked => Documents - Deterministic - Randomized;
}

using System.Text.Json;
using Encryption.Custom.Json.Inspection;
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
/// Each document is read by the chosen processor's inspector (<see cref="DocumentInspector"/>). A bound cell says it is
/// bound (randomized); whether an unbound one is deterministic is not in the metadata nor the cell: for each document
/// under a key the survey was given (<see cref="SurveyRequest.KeyIds"/>), each top-level value is decrypted in
/// memory and its deterministic IV recomputed, as <see cref="MigrationTarget"/> does for the target state. Nested
/// selectors count with an unknown type. Documents under other keys, or under a key
/// that cannot be had, count with an unknown type: a migration cannot decrypt those either, so it reports them and
/// never changes their type. (The tool proves its keys before the survey, so that a missing key fails at once.)
/// </remarks>
internal sealed partial class ContainerSurvey
{
    private const string Query = "SELECT * FROM c";

    private readonly Dictionary<string, long> _byKey = new(StringComparer.Ordinal);
    private readonly Dictionary<string, PathUse> _byPath = new(StringComparer.Ordinal);
    private readonly Dictionary<string, HashSet<string>> _pathKeys = new(StringComparer.Ordinal);
    private readonly Dictionary<int, long> _byFormat = [];
    private readonly Dictionary<string, long> _withValues = new(StringComparer.Ordinal);
    private readonly string[][] _targetSelectors;

    private ContainerSurvey(ContainerEncryptionPolicy? target)
    {
        // Split once: "/address/city" → ["address", "city"], "/cards/[]/number" → ["cards", "[]", "number"].
        _targetSelectors = target is null ? [] : [.. target.IncludedPaths.Select(p => p.Path.Split('/')[1..])];
        foreach (EncryptionPolicyIncludedPath path in target?.IncludedPaths ?? [])
        {
            _withValues[path.Path] = 0;
        }
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

    /// <summary>Encrypted documents per format version (<c>_ef</c>: 2, 3 or 101).</summary>
    public IReadOnlyDictionary<int, long> DocumentsByFormatVersion => _byFormat;

    /// <summary>Per encrypted path (<c>/name</c>): the documents that encrypt it, by encryption type.</summary>
    public IReadOnlyDictionary<string, PathUse> Paths => _byPath;

    /// <summary>
    /// What the documents store at <paramref name="path"/> (the id or a partition key path, for the in-place job's
    /// <see cref="TargetComparison.DescribeStoredKeyChange"/>): the documents holding a value there (known only for a
    /// path of the target; else those that encrypt it), those that encrypt it, and the DEKs they encrypt it under.
    /// </summary>
    public StoredPathUse StoredAt(string path)
    {
        long encrypted = _byPath.GetValueOrDefault(path).Documents;
        return new StoredPathUse(
            _withValues.TryGetValue(path, out long withValues) ? withValues : encrypted,
            encrypted,
            _pathKeys.TryGetValue(path, out HashSet<string>? keys) ? keys : []);
    }

    /// <summary>
    /// Per path of the target given to <see cref="RunAsync"/> (<see cref="SurveyRequest.Target"/>): the documents holding a value there that is not
    /// <c>null</c> (encrypted or not). For a path no document encrypts yet, the documents a run would encrypt it in
    /// (<see cref="Paths"/> counts only those that encrypt it, which is 0 then).
    /// </summary>
    public IReadOnlyDictionary<string, long> DocumentsWithValues => _withValues;

    /// <summary>Surveys <see cref="SurveyRequest.Container"/>.</summary>
    /// <param name="request">What is surveyed, and with which reader and keys.</param>
    /// <param name="budget">The migration's throughput budget each page waits for and is charged to, or <see langword="null"/>.</param>
    /// <param name="time">The clock transient failures are backed off by.</param>
    /// <param name="cancellationToken">Cancels the survey.</param>
    /// <exception cref="CosmosException">The service refused the query.</exception>
    public static async Task<ContainerSurvey> RunAsync(SurveyRequest request, RequestUnitBudget? budget, TimeProvider time, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        ArgumentNullException.ThrowIfNull(time);
        Container container = request.Container;
        IReadOnlyCollection<string> keyIds = request.KeyIds;
        ArgumentNullException.ThrowIfNull(container);
        ArgumentNullException.ThrowIfNull(keyIds);
        (Encryptor? encryptor, DocumentInspector inspector, int maxDepth) = (request.Encryptor, request.Inspector, request.MaxDepth);
        var survey = new ContainerSurvey(request.Target);
        var keys = new Dictionary<string, DataEncryptionKeyLease>(StringComparer.Ordinal);
        var unavailable = new HashSet<string>(StringComparer.Ordinal);
        try
        {
            // One feed range when the survey is shared between instances (SharedRangeScan), else the whole container.
            using var iterator = ResumableQueryIterator.Over(container, Query, request.Range);
            while (iterator.HasMoreResults)
            {
                // A failed page is asked for again after a pause, from the last page received (ResumableQueryIterator).
                using ResponseMessage response = await iterator.ReadNextSettledAsync(budget, charge => survey.RequestUnits += charge, time, cancellationToken).ConfigureAwait(false);
                response.EnsureSuccessStatusCode();
                using var copy = new MemoryStream();
                await response.Content.CopyToAsync(copy, cancellationToken).ConfigureAwait(false);
                byte[] page = copy.GetBuffer();
                int length = (int)copy.Length;
                if (encryptor is not null)
                {
                    foreach ((string id, string algorithm) in KeysToLease(page.AsSpan(0, length), keyIds, keys, unavailable, inspector, maxDepth))
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

                survey.AddPage(page.AsSpan(0, length), keys, inspector, maxDepth);
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
        ReadOnlySpan<byte> page, IReadOnlyCollection<string> keyIds, Dictionary<string, DataEncryptionKeyLease> held, HashSet<string> unavailable, DocumentInspector inspector, int maxDepth)
    {
        var wanted = new List<(string, string)>();
        foreach (Range range in FeedPageDocuments.Split(page, maxDepth))
        {
            DocumentInspection inspection = inspector.Inspect(page[range], new InspectionRequest(maxDepth));
            if (inspection is { State: InspectedState.Encrypted, KeyId: { } id, Algorithm: { } algorithm }
                && keyIds.Contains(id) && !held.ContainsKey(id) && !unavailable.Contains(id) && !wanted.Exists(w => w.Item1 == id))
            {
                wanted.Add((id, algorithm));
            }
        }

        return wanted;
    }

    private void AddPage(ReadOnlySpan<byte> page, Dictionary<string, DataEncryptionKeyLease> keys, DocumentInspector inspector, int maxDepth)
    {
        Func<string, DataEncryptionKey?> keyOf = id => keys.TryGetValue(id, out DataEncryptionKeyLease lease) ? lease.Key : null;
        foreach (Range range in FeedPageDocuments.Split(page, maxDepth))
        {
            TotalDocuments++;
            DocumentInspection inspection = inspector.Inspect(page[range], new InspectionRequest(maxDepth, Keys: keyOf));
            if (inspection.State == InspectedState.Unreadable)
            {
                UnreadableDocuments++;
                continue;
            }

            CountValues(page[range], maxDepth);
            if (inspection.State == InspectedState.Plaintext)
            {
                UnencryptedDocuments++;
                continue;
            }

            _byKey[inspection.KeyId!] = _byKey.GetValueOrDefault(inspection.KeyId!) + 1;
            _byFormat[inspection.FormatVersion] = _byFormat.GetValueOrDefault(inspection.FormatVersion) + 1;
            foreach (InspectedPath path in inspection.Paths)
            {
                // A value that does not decrypt is the job's to report (it fails that document); its type is unknown.
                // A bound cell is randomized (bound cells are never deterministic).
                PathUse use = _byPath.GetValueOrDefault(path.Path);
                if (!_pathKeys.TryGetValue(path.Path, out HashSet<string>? pathKeys))
                {
                    _pathKeys[path.Path] = pathKeys = new HashSet<string>(StringComparer.Ordinal);
                }

                pathKeys.Add(inspection.KeyId!);
                _byPath[path.Path] = path.Type switch
                {
                    InspectedCellType.Deterministic => use with { Documents = use.Documents + 1, Deterministic = use.Deterministic + 1 },
                    InspectedCellType.Randomized or InspectedCellType.Bound => use with { Documents = use.Documents + 1, Randomized = use.Randomized + 1 },
                    _ => use with { Documents = use.Documents + 1 },
                };
            }
        }
    }

    // Which target paths hold a value in this document (inspection said it is well-formed JSON within maxDepth).
    private void CountValues(ReadOnlySpan<byte> document, int maxDepth)
    {
        if (_targetSelectors.Length == 0)
        {
            return;
        }

        JsonDocument parsed;
        try
        {
            var reader = new Utf8JsonReader(document, new JsonReaderOptions { MaxDepth = maxDepth + 1 });
            parsed = JsonDocument.ParseValue(ref reader);
        }
        catch (JsonException)
        {
            // Deeper than this reader allows: the run judges (and reports) such a document itself; the count is a preview.
            return;
        }

        using (parsed)
        {
            CountValues(parsed.RootElement);
        }
    }

    private void CountValues(JsonElement root)
    {
        foreach (string[] selector in _targetSelectors)
        {
            if (HasValue(root, selector))
            {
                string path = "/" + string.Join('/', selector);
                _withValues[path]++;
            }
        }
    }

    // Whether the selector picks a value that is not null: a name is an object's member, "[]" each element of an array.
    private static bool HasValue(JsonElement element, ReadOnlySpan<string> selector)
    {
        if (selector.IsEmpty)
        {
            return element.ValueKind != JsonValueKind.Null;
        }

        if (selector[0] == "[]")
        {
            if (element.ValueKind != JsonValueKind.Array)
            {
                return false;
            }

            foreach (JsonElement item in element.EnumerateArray())
            {
                if (HasValue(item, selector[1..]))
                {
                    return true;
                }
            }

            return false;
        }

        return element.ValueKind == JsonValueKind.Object && element.TryGetProperty(selector[0], out JsonElement member) && HasValue(member, selector[1..]);
    }
}

/// <summary>What the documents store at one path: how many hold a value there, how many encrypt it, under which DEKs.</summary>
internal readonly record struct StoredPathUse(long WithValues, long Encrypted, IReadOnlyCollection<string> KeyIds)
{
    /// <summary>Documents that hold a value at the path in plaintext.</summary>
    public long Plaintext => Math.Max(0, WithValues - Encrypted);
}

/// <summary>How many documents encrypt one path, and how (the rest of <see cref="Documents"/> were not checked).</summary>
internal readonly record struct PathUse(long Documents, long Deterministic, long Randomized)
{
    /// <summary>Documents whose encryption type was not checked (no key given for them, or an absent value).</summary>
    public long Unchecked => Documents - Deterministic - Randomized;
}

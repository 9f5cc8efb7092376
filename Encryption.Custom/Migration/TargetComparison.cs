namespace Encryption.Custom.Migration;

/// <summary>What a migration would do to a path in the documents that encrypt it.</summary>
internal enum PathChangeKind
{
    /// <summary>The target does not encrypt the path (or nothing at all): its values would be written as plaintext.</summary>
    Decrypt,

    /// <summary>Randomized now, deterministic in the target: equal values would become visible as equal.</summary>
    ToDeterministic,

    /// <summary>Deterministic now, randomized in the target: equality queries on the path would stop finding them.</summary>
    ToRandomized,
}

/// <summary>One path whose encryption a migration would take away or change, in how many documents, and whether the operator allowed it.</summary>
internal readonly record struct PathChange(string Path, PathChangeKind Kind, long Documents, bool Allowed);

/// <summary>
/// The comparison of a migration's target with what the container holds (<see cref="ContainerSurvey"/>): each path
/// whose encryption the run would remove or whose encryption type it would change. Such a change destroys something
/// an application may rely on (a strict policy reading the path, an equality query), so it must be named by the
/// operator, path by path; everything else a migration does (encrypting plaintext, rotating a key, adding a path)
/// needs no permission.
/// </summary>
internal static class TargetComparison
{
    /// <summary>Compares <paramref name="target"/> with the surveyed <paramref name="paths"/>.</summary>
    /// <param name="target">The target policy, or <see langword="null"/> for "no encryption".</param>
    /// <param name="paths">Per encrypted path (<c>/name</c>), the documents that encrypt it (<see cref="ContainerSurvey.Paths"/>).</param>
    /// <param name="allowedDecryptPaths">The paths the operator allows to be decrypted.</param>
    /// <param name="allowedTypeChangePaths">The paths whose encryption type the operator allows to change.</param>
    /// <returns>The changes, ordered by path; empty when the run takes nothing away.</returns>
    public static IReadOnlyList<PathChange> Compare(
        ContainerEncryptionPolicy? target,
        IReadOnlyDictionary<string, PathUse> paths,
        IReadOnlyCollection<string> allowedDecryptPaths,
        IReadOnlyCollection<string> allowedTypeChangePaths)
    {
        ArgumentNullException.ThrowIfNull(paths);
        ArgumentNullException.ThrowIfNull(allowedDecryptPaths);
        ArgumentNullException.ThrowIfNull(allowedTypeChangePaths);
        var changes = new List<PathChange>();
        foreach ((string path, PathUse use) in paths.OrderBy(p => p.Key, StringComparer.Ordinal))
        {
            EncryptionPolicyIncludedPath? included = target?.IncludedPaths.FirstOrDefault(p => string.Equals(p.Path, path, StringComparison.Ordinal));
            if (included is null)
            {
                changes.Add(new PathChange(path, PathChangeKind.Decrypt, use.Documents, allowedDecryptPaths.Contains(path)));
                continue;
            }

            bool allowed = allowedTypeChangePaths.Contains(path);
            if (included.EncryptionType == PathEncryptionType.Deterministic && use.Randomized > 0)
            {
                changes.Add(new PathChange(path, PathChangeKind.ToDeterministic, use.Randomized, allowed));
            }
            else if (included.EncryptionType == PathEncryptionType.Randomized && use.Deterministic > 0)
            {
                changes.Add(new PathChange(path, PathChangeKind.ToRandomized, use.Deterministic, allowed));
            }
        }

        return changes;
    }

    /// <summary>What a change does, in words for an operator: <c>decrypt /card in 3000 document(s) …</c>.</summary>
    public static string Describe(PathChange change) => change.Kind switch
    {
        PathChangeKind.Decrypt => FormattableString.Invariant($"decrypt {change.Path} in {change.Documents} document(s): the target does not encrypt it, so its values would be stored as plaintext"),
        PathChangeKind.ToDeterministic => FormattableString.Invariant($"make {change.Path} deterministic in {change.Documents} document(s): equal values would become visible as equal"),
        _ => FormattableString.Invariant($"make {change.Path} randomized in {change.Documents} document(s): equality queries on it would stop finding them"),
    };

    /// <summary>
    /// What an in-place migration can never do: change how a document is addressed. A stored id or partition key that
    /// changes makes a new document to the service, which a conditional replace cannot do, and an application reading
    /// by the old id would not find it; such a target needs a copy into a new container. The rule, per addressing path
    /// (<c>/id</c> and each partition key path), from what the container's documents store there
    /// (<see cref="ContainerSurvey.StoredAt"/>): refused when documents hold it in plaintext and the target encrypts it,
    /// when documents hold it encrypted and the target does not (or is no encryption), and when documents hold it
    /// encrypted under a DEK other than the target's (deterministic ciphertext depends on the key). A target that
    /// encrypts it exactly as the documents already do (the same DEK; an id or key is always deterministic) changes
    /// nothing there and is allowed, so such a container can still have paths added or its other values rotated in place.
    /// </summary>
    /// <param name="target">The target policy, or <see langword="null"/>.</param>
    /// <param name="partitionKeyPaths">The container's partition key paths.</param>
    /// <param name="stored">What the documents store at a path.</param>
    /// <returns>The reason the run is refused (paths, counts and DEK ids only), or <see langword="null"/>.</returns>
    public static string? DescribeStoredKeyChange(ContainerEncryptionPolicy? target, IReadOnlyList<string> partitionKeyPaths, Func<string, StoredPathUse> stored)
    {
        ArgumentNullException.ThrowIfNull(partitionKeyPaths);
        ArgumentNullException.ThrowIfNull(stored);
        foreach (string path in partitionKeyPaths.Prepend("/id").Distinct(StringComparer.Ordinal))
        {
            StoredPathUse use = stored(path);
            bool encrypts = target?.IncludedPaths.Any(p => string.Equals(p.Path, path, StringComparison.Ordinal)) == true;
            string? change = (encrypts, use) switch
            {
                (true, { Plaintext: > 0 }) => FormattableString.Invariant(
                    $"The target policy encrypts {path}, which {use.Plaintext} document(s) store in plaintext"),
                (false, { Encrypted: > 0 }) => FormattableString.Invariant(
                    $"{use.Encrypted} document(s) store {path} encrypted, and the target {(target is null ? "is no encryption" : "does not encrypt it")}"),
                (true, { Encrypted: > 0 }) when use.KeyIds.Any(k => !string.Equals(k, target!.DataEncryptionKeyId, StringComparison.Ordinal)) => FormattableString.Invariant(
                    $"Documents store {path} encrypted under the data encryption key(s) '{string.Join("', '", use.KeyIds.Where(k => !string.Equals(k, target!.DataEncryptionKeyId, StringComparison.Ordinal)).Order(StringComparer.Ordinal))}', and the target encrypts it under '{target!.DataEncryptionKeyId}'"),
                _ => null,
            };
            if (change is not null)
            {
                return change + FormattableString.Invariant(
                    $": {path} addresses each document, so changing it in place would change their stored id or partition key. Nothing was written. Copy the container into a new one instead (the EncryptionMigrationJob constructor with a target container, or the tool's migrate --target-container; docs/migration.md, \"Copying into a new container\").");
            }
        }

        return null;
    }
}

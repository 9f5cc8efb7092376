namespace Encryption.Custom.Migration;

/// <summary>
/// What the verification scan (<see cref="StatusScan"/>) needs to tell a document outside the target state that is
/// already explained (a failure this instance reported) from one that is not, and where it hands the unexplained ones
/// back to be migrated. The three travel together: a document is looked up by its id and partition key, read with the
/// container's partition key paths, and kept only when the lookup does not explain it. The status query has none.
/// </summary>
/// <param name="IsExplained">Whether a document outside the target state is already known (a reported failure).</param>
/// <param name="PartitionKeyPaths">The container's partition key paths (to read a document's partition key).</param>
/// <param name="Outstanding">Receives the documents counted as unexplained (at most <see cref="StatusScan.MaxOutstanding"/>), or <see langword="null"/>.</param>
internal sealed record UnexplainedSearch(Func<StoredDocument, bool> IsExplained, IReadOnlyList<string> PartitionKeyPaths, List<StoredDocument>? Outstanding);

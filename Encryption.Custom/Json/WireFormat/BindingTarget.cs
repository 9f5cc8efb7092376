// Where a bound document lives (wire-format.md "Bound cells"): the container's scope and its partition-key paths,
// which go into every document digest D. The Cosmos layer knows both and hands them down as this plain type, so the
// Json layer never names a Cosmos SDK type. Partition-key paths are top-level property names in this version: a
// nested partition-key path is refused when binding is asked for rather than bound to a value found some other way.
using System.Text;
using Encryption.Custom.Diagnostics;
using Encryption.Custom.Json.Errors;

namespace Encryption.Custom.Json.WireFormat;

/// <summary>The container a bound plan binds documents to: scope and partition-key paths.</summary>
internal sealed class BindingTarget
{
    /// <summary>The most partition-key paths a container defines (hierarchical keys).</summary>
    public const int MaxPartitionKeyPaths = 3;

    private readonly string[] _partitionKeyPaths;
    private readonly byte[][] _partitionKeyNames;

    /// <param name="scope">"&lt;database id&gt;/&lt;container id&gt;".</param>
    /// <param name="partitionKeyPaths">The container's partition-key paths, in order (for example <c>/tenant</c>).</param>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.InvalidOptions"/>: an empty scope, more than three paths, or a path that is not one top-level property.</exception>
    public BindingTarget(string scope, IReadOnlyList<string> partitionKeyPaths)
    {
        if (string.IsNullOrEmpty(scope))
        {
            JsonErrors.ThrowInvalidOptions("Binding needs the container's scope ('<database id>/<container id>').");
        }

        if (partitionKeyPaths.Count > MaxPartitionKeyPaths)
        {
            JsonErrors.ThrowInvalidOptions($"Binding supports at most {MaxPartitionKeyPaths} partition-key paths.");
        }

        Scope = scope;
        _partitionKeyPaths = [.. partitionKeyPaths];
        _partitionKeyNames = new byte[_partitionKeyPaths.Length][];
        for (int i = 0; i < _partitionKeyPaths.Length; i++)
        {
            string path = _partitionKeyPaths[i];
            if (path is null || path.Length < 2 || path[0] != '/' || path.IndexOfAny(['/', '"', '\\', '[', ']'], 1) >= 0)
            {
                JsonErrors.ThrowInvalidOptions(
                    $"The partition-key path '{UntrustedText.Shorten(path ?? "(null)")}' is not one top-level property: binding to a nested partition-key path is not supported in this version (turn binding off for this container).");
            }

            _partitionKeyNames[i] = Encoding.UTF8.GetBytes(path[1..]);
        }
    }

    /// <summary>"&lt;database id&gt;/&lt;container id&gt;".</summary>
    public string Scope { get; }

    /// <summary>
    /// Whether documents written here also carry the document commitment (<c>commit</c>, wire-format.md "Document
    /// commitment") and documents read here must. Part of the binding: it reuses D and needs bound cells.
    /// </summary>
    public bool Commit { get; init; }

    /// <summary>This target with <see cref="Commit"/> set to <paramref name="commit"/> (itself when it already is).</summary>
    public BindingTarget WithCommit(bool commit) =>
        commit == Commit ? this : new BindingTarget(Scope, _partitionKeyPaths) { Commit = commit };

    /// <summary>How many partition-key paths the container defines.</summary>
    public int PartitionKeyCount => _partitionKeyPaths.Length;

    /// <summary>The partition-key path at <paramref name="index"/> as the container defines it.</summary>
    public string GetPartitionKeyPath(int index) => _partitionKeyPaths[index];

    /// <summary>The unescaped UTF-8 property name of the partition-key path at <paramref name="index"/>.</summary>
    public ReadOnlySpan<byte> GetPartitionKeyName(int index) => _partitionKeyNames[index];

    /// <summary>The index of the partition-key path named <paramref name="utf8Name"/>, or -1.</summary>
    public int FindPartitionKey(ReadOnlySpan<byte> utf8Name)
    {
        for (int i = 0; i < _partitionKeyNames.Length; i++)
        {
            if (utf8Name.SequenceEqual(_partitionKeyNames[i]))
            {
                return i;
            }
        }

        return -1;
    }
}

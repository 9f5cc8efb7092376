using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Processing;

/// <summary>
/// Rejects encryption options that would encrypt the container's partition key (or the top-level property that
/// holds a nested one) before anything is sent: the service cannot route a document whose key is ciphertext.
/// The container's partition key definition is read once and cached; a failed read is not cached. It is also the one
/// owner of the container's partition-key paths for binding (<see cref="GetPartitionKeyPathsAsync"/>).
/// </summary>
internal sealed class PartitionKeyGuard
{
    private readonly Container _container;
    private volatile string[]? _topLevelNames;
    private volatile string[]? _partitionKeyPaths;

    public PartitionKeyGuard(Container container)
    {
        _container = container;
    }

    /// <summary>Validates <paramref name="options"/> (paths, key id, algorithm) and checks them against the partition key.</summary>
    /// <exception cref="EncryptionException">The options are invalid or encrypt the partition key (<see cref="EncryptionErrorKind.InvalidOptions"/>).</exception>
    /// <exception cref="CosmosException">The container's definition could not be read.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public ValueTask CheckAsync(EncryptionOptions options, CancellationToken cancellationToken)
    {
        EncryptionPlan plan = options.GetPlan();
        string[]? names = _topLevelNames;
        if (names is not null)
        {
            Check(plan, names, _partitionKeyPaths);
            return ValueTask.CompletedTask;
        }

        return CheckSlowAsync(plan, cancellationToken);
    }

    /// <summary>The top-level property names that hold the partition key (read once).</summary>
    /// <exception cref="CosmosException">The container's definition could not be read.</exception>
    public async ValueTask<string[]> GetNamesAsync(CancellationToken cancellationToken)
    {
        string[]? names = _topLevelNames;
        if (names is not null)
        {
            return names;
        }

        await ReadDefinitionAsync(cancellationToken).ConfigureAwait(false);
        return _topLevelNames!;
    }

    /// <summary>The container's partition-key paths as it defines them, in order (read once; empty when it has none).</summary>
    /// <exception cref="CosmosException">The container's definition could not be read.</exception>
    public async ValueTask<IReadOnlyList<string>> GetPartitionKeyPathsAsync(CancellationToken cancellationToken)
    {
        string[]? paths = _partitionKeyPaths;
        if (paths is not null)
        {
            return paths;
        }

        await ReadDefinitionAsync(cancellationToken).ConfigureAwait(false);
        return _partitionKeyPaths!;
    }

    private async ValueTask ReadDefinitionAsync(CancellationToken cancellationToken)
    {
        // Concurrent first operations may each read the definition: harmless (it does not change) and lock-free.
        ContainerResponse response = await _container.ReadContainerAsync(cancellationToken: cancellationToken).ConfigureAwait(false);
        ContainerProperties properties = response.Resource;
        IReadOnlyList<string?> paths = properties.PartitionKeyPaths ?? (IReadOnlyList<string?>)[properties.PartitionKeyPath];
        string[] defined = [.. paths.Where(path => !string.IsNullOrEmpty(path)).Select(path => path!)];
        _partitionKeyPaths = defined;
        _topLevelNames = ToTopLevelNames(defined);
    }

    /// <summary>Throws when <paramref name="plan"/> encrypts one of <paramref name="names"/>.</summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.InvalidOptions"/>.</exception>
    /// <param name="plan">The compiled options.</param>
    /// <param name="names">The top-level names holding the partition key (<see cref="ToTopLevelNames"/>).</param>
    /// <param name="partitionKeyPaths">The partition key paths: a deterministic path equal to a top-level one is allowed (an encrypted key, looked up by its ciphertext).</param>
    public static void Check(EncryptionPlan plan, string[] names, IReadOnlyList<string>? partitionKeyPaths = null)
    {
        for (int i = 0; i < plan.PathCount; i++)
        {
            string path = plan.GetPath(i);
            if (plan.IsDeterministic(i) && partitionKeyPaths?.Contains(path) == true)
            {
                // The policy's deterministic path is the key itself: LookupKeys encrypts every lookup the same way.
                continue;
            }

            // A nested selector is compared by its first segment: under the property that holds the partition key,
            // it is refused whether or not it reaches the key itself (fail closed; the key's own path may be nested).
            int slash = path.IndexOf('/', 1);
            ReadOnlySpan<char> top = slash < 0 ? path.AsSpan(1) : path.AsSpan(1, slash - 1);
            for (int j = 0; j < names.Length; j++)
            {
                if (top.SequenceEqual(names[j]))
                {
                    throw new EncryptionException(
                        EncryptionErrorKind.InvalidOptions,
                        slash < 0
                            ? $"The path '{path}' holds the container's partition key, which can be encrypted only deterministically, by the container's policy (PathEncryptionType.Deterministic), and only when the key is that top-level property: lookups by key must find the same ciphertext."
                            : $"The selector '{path}' lies under '/{names[j]}', which holds the container's partition key: nothing under it can be encrypted.",
                        plan.DataEncryptionKeyId,
                        path);
                }
            }
        }
    }

    /// <summary>The first segment of each partition key path, unquoted (<c>/tenant/id</c> → <c>tenant</c>).</summary>
    internal static string[] ToTopLevelNames(IReadOnlyList<string?> partitionKeyPaths)
    {
        var names = new List<string>(partitionKeyPaths.Count);
        foreach (string? path in partitionKeyPaths)
        {
            if (string.IsNullOrEmpty(path) || path[0] != '/')
            {
                continue;
            }

            string name;
            if (path.Length > 1 && path[1] == '"')
            {
                // A quoted segment (/"a/b"/c) may contain slashes.
                int close = path.IndexOf('"', 2);
                name = close < 0 ? path[2..] : path[2..close];
            }
            else
            {
                int slash = path.IndexOf('/', 1);
                name = slash < 0 ? path[1..] : path[1..slash];
            }

            if (name.Length > 0 && !names.Contains(name))
            {
                names.Add(name);
            }
        }

        return [.. names];
    }

    private async ValueTask CheckSlowAsync(EncryptionPlan plan, CancellationToken cancellationToken)
    {
        string[] names = await GetNamesAsync(cancellationToken).ConfigureAwait(false);
        Check(plan, names, _partitionKeyPaths);
    }
}

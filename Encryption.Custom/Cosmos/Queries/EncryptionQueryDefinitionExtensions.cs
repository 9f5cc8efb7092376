using Encryption.Custom.Cosmos.Queries;
using Encryption.Custom.Cosmos;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom;

/// <summary>
/// Parameters that compare with a deterministically encrypted property (docs/queries.md): the value is encrypted
/// as the container's policy encrypts that path, so <c>c.ssn = @ssn</c> matches on the service.
/// </summary>
public static class EncryptionQueryDefinitionExtensions
{
    /// <summary>
    /// Adds the parameter <paramref name="name"/> holding <paramref name="value"/> encrypted for
    /// <paramref name="path"/>, which the container's <see cref="ContainerEncryptionPolicy"/> must encrypt with
    /// <see cref="PathEncryptionType.Deterministic"/>. Use it with <c>=</c>, <c>!=</c> or in an <c>IN (...)</c> list
    /// (one parameter per value). The parameter holds the ciphertext under the policy's current key; while the policy
    /// accepts previous keys (a rotation), the container recognises it and compares with the value under every
    /// accepted key (<c>c.ssn IN (...)</c>) when sending, so documents under either key match. A plain
    /// <see cref="QueryDefinition.WithParameter"/> value in the same position is encrypted the same way.
    /// </summary>
    /// <param name="queryDefinition">The query; run it through <paramref name="container"/>.</param>
    /// <param name="name">The parameter name, starting with <c>@</c>.</param>
    /// <param name="value">The plaintext value: a string, number or boolean, as the property holds it (serialized with the client's serializer, so an integer and a double with the same value differ); <see langword="null"/> adds a plain null.</param>
    /// <param name="path">The top-level path, for example <c>/ssn</c>.</param>
    /// <param name="container">The encryption container the query runs on.</param>
    /// <param name="cancellationToken">Cancels key lookups.</param>
    /// <returns><paramref name="queryDefinition"/>, with the parameter added.</returns>
    /// <exception cref="ArgumentNullException">An argument other than <paramref name="value"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="container"/> is not an encryption container, or <paramref name="name"/> does not start with <c>@</c>.</exception>
    /// <exception cref="NotSupportedException">The container has no policy, or the policy does not encrypt <paramref name="path"/> deterministically (the message says why).</exception>
    /// <exception cref="EncryptionException">The value cannot be encrypted deterministically (an object or array, a number beyond int64), or a key is unavailable.</exception>
    public static async Task<QueryDefinition> AddParameterAsync(
        this QueryDefinition queryDefinition,
        string name,
        object? value,
        string path,
        Container container,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(queryDefinition);
        ArgumentNullException.ThrowIfNull(name);
        ArgumentNullException.ThrowIfNull(path);
        ArgumentNullException.ThrowIfNull(container);
        if (!name.StartsWith('@') || name.Length < 2)
        {
            throw new ArgumentException("A query parameter name starts with '@'.", nameof(name));
        }

        if (container is not EncryptionContainer encryptionContainer)
        {
            throw new ArgumentException("The container was not created with WithEncryptor.", nameof(container));
        }

        _ = DeterministicPolicyFor(encryptionContainer, path);
        cancellationToken.ThrowIfCancellationRequested();
        return value is null
            ? queryDefinition.WithParameter(name, null)
            : queryDefinition.WithParameter(name, await encryptionContainer.QueryGuard.EncryptParameterAsync(value, path, cancellationToken).ConfigureAwait(false));
    }

    private static ContainerEncryptionPolicy DeterministicPolicyFor(EncryptionContainer container, string path)
    {
        ContainerEncryptionPolicy policy = container.Policy
            ?? throw new NotSupportedException($"The container has no encryption policy, so it does not encrypt '{path}' deterministically: add the parameter with WithParameter, or give the container a ContainerEncryptionPolicy that lists '{path}' as deterministic.");
        foreach (EncryptionPolicyIncludedPath included in policy.IncludedPaths)
        {
            if (string.Equals(included.Path, path, StringComparison.Ordinal))
            {
                return included.EncryptionType == PathEncryptionType.Deterministic
                    ? policy
                    : throw new NotSupportedException($"The container's encryption policy encrypts '{path}' with randomized encryption: equal values encrypt differently, so no parameter can match it on the service. Mark the path PathEncryptionType.Deterministic if equality queries on it are worth revealing which documents share a value (docs/queries.md).");
            }
        }

        foreach (EncryptionPolicyIncludedPath included in policy.IncludedPaths)
        {
            // The policy encrypts a property named like this one ignoring case (serializers bind it so): advising
            // WithParameter would send the value in plaintext for a property that is in fact encrypted.
            if (string.Equals(included.Path, path, StringComparison.OrdinalIgnoreCase))
            {
                throw new NotSupportedException($"The container's encryption policy lists '{included.Path}', not '{path}': AddParameterAsync takes the path exactly as the policy writes it. Pass '{included.Path}'.");
            }
        }

        throw new NotSupportedException($"The container's encryption policy does not encrypt '{path}': it is stored in plaintext, so add the parameter unencrypted with WithParameter.");
    }
}

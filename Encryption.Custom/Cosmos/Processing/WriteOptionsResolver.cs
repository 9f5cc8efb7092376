using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Cosmos.Processing;

/// <summary>
/// The single point where a container decides what a write encrypts: the request's own
/// <see cref="EncryptionOptions"/> (Microsoft's style), else the container's <see cref="ContainerEncryptionPolicy"/>.
/// Every write API (typed and stream point writes, patch, batch, bulk) asks here, so none can encrypt less than the
/// policy requires. Immutable; safe for concurrent use.
/// </summary>
internal sealed class WriteOptionsResolver
{
    private readonly PolicyRuleSet? _rules;
    private readonly EncryptionOptions? _policyOptions;

    public WriteOptionsResolver(ContainerEncryptionPolicy? policy)
    {
        _rules = policy?.Rules;
        if (_rules is { EncryptsWrites: true })
        {
            // Under rules that bind, the container's scope and partition-key paths are known only after a read:
            // BodyCrypto binds every body it encrypts (and refuses to encrypt one it cannot bind).
            _policyOptions = _rules.BuildWriteOptions(binding: null);
        }
    }

    /// <summary>The container's compiled policy, or <see langword="null"/>.</summary>
    public PolicyRuleSet? Rules => _rules;

    /// <summary>
    /// The options a write encrypts with: <paramref name="requested"/> when given (checked to list paths and to
    /// cover the policy), else the policy's when it encrypts writes, else <see langword="null"/> (plaintext).
    /// </summary>
    /// <exception cref="EncryptionException">
    /// The requested options are invalid, list no path, or encrypt less than the policy (another key or algorithm,
    /// or a policy path missing): <see cref="EncryptionErrorKind.InvalidOptions"/>.
    /// </exception>
    public EncryptionOptions? Resolve(EncryptionOptions? requested)
    {
        if (requested is null)
        {
            return _policyOptions;
        }

        EncryptionPlan plan = requested.GetPlan();
        if (plan.PathCount == 0)
        {
            JsonErrors.ThrowInvalidOptions("The request asks for encryption but lists no path to encrypt (PathsToEncrypt is empty).", plan.DataEncryptionKeyId);
        }

        if (_policyOptions is not null)
        {
            CheckCoversPolicy(plan, _rules!);
            if (_policyOptions.DeterministicPaths is not null || _rules!.Plan.HasQueryTokens)
            {
                // The request covers the policy, so its paths include the deterministic and token ones: encrypt those
                // as the policy says, or equality, range and prefix queries would miss this document (and a strict
                // reader would refuse it without its tokens). A copy, not the caller's instance.
                return new EncryptionOptions
                {
                    DataEncryptionKeyId = requested.DataEncryptionKeyId,
                    EncryptionAlgorithm = requested.EncryptionAlgorithm,
                    PathsToEncrypt = requested.PathsToEncrypt,
                    DeterministicPaths = _policyOptions.DeterministicPaths,
                    QueryTokens = QueryTokensFor(plan, _rules!.Plan),
                };
            }
        }

        return requested;
    }

    // The policy's declarations in the order of the request's paths (the request may add paths, which have none).
    private static Json.Tokens.QueryTokenRule?[]? QueryTokensFor(EncryptionPlan requested, EncryptionPlan policy)
    {
        if (!policy.HasQueryTokens)
        {
            return null;
        }

        var tokens = new Json.Tokens.QueryTokenRule?[requested.PathCount];
        for (int i = 0; i < tokens.Length; i++)
        {
            int index = policy.IndexOf(requested.GetPath(i));
            tokens[i] = index >= 0 ? policy.GetQueryTokens(index) : null;
        }

        return tokens;
    }

    private static void CheckCoversPolicy(EncryptionPlan requested, PolicyRuleSet policy)
    {
        if (!string.Equals(requested.DataEncryptionKeyId, policy.DataEncryptionKeyId, StringComparison.Ordinal)
            || !string.Equals(requested.EncryptionAlgorithm, policy.EncryptionAlgorithm, StringComparison.Ordinal))
        {
            JsonErrors.ThrowInvalidOptions(
                $"The request encrypts with the key '{requested.DataEncryptionKeyId}', but the container's encryption policy requires '{policy.DataEncryptionKeyId}' ({policy.EncryptionAlgorithm}).",
                requested.DataEncryptionKeyId);
        }

        EncryptionPlan required = policy.Plan;
        for (int i = 0; i < required.PathCount; i++)
        {
            if (requested.IndexOf(required.GetPath(i)) < 0)
            {
                throw new EncryptionException(
                    EncryptionErrorKind.InvalidOptions,
                    $"The request does not encrypt '{required.GetPath(i)}', which the container's encryption policy requires: a request may add paths to the policy's, never leave one out.",
                    requested.DataEncryptionKeyId,
                    required.GetPath(i));
            }
        }
    }
}

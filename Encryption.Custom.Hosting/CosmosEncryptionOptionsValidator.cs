using Microsoft.Extensions.Options;

namespace Encryption.Custom.Hosting;

/// <summary>
/// Validates <see cref="CosmosEncryptionOptions"/> beyond the data annotations: the DEK ids, the algorithm, and the
/// key provider's options. Those last are checked by the provider's own constructor (on a throwaway instance that is
/// disposed at once), so the rules have one owner and a host fails at start with the same message a direct caller gets.
/// </summary>
internal sealed class CosmosEncryptionOptionsValidator : IValidateOptions<CosmosEncryptionOptions>
{
    public ValidateOptionsResult Validate(string? name, CosmosEncryptionOptions options)
    {
        var failures = new List<string>();
        if (options.DataEncryptionKeyIds.Any(string.IsNullOrWhiteSpace))
        {
            failures.Add($"{nameof(CosmosEncryptionOptions.DataEncryptionKeyIds)} contains an empty id.");
        }

        if (options.EncryptionAlgorithm is not (CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized or CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized))
        {
            failures.Add(
                $"{nameof(CosmosEncryptionOptions.EncryptionAlgorithm)} '{options.EncryptionAlgorithm}' is not supported " +
                $"(use {CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized} or {CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized}).");
        }

        try
        {
            using var probe = new CosmosDataEncryptionKeyProvider(UnusedKeyWrapProvider.Instance, options.KeyProvider);
        }
        catch (ArgumentException exception)
        {
            failures.Add($"{nameof(CosmosEncryptionOptions.KeyProvider)}: {exception.Message}");
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }

    /// <summary>Never called: the probe provider is only constructed.</summary>
    private sealed class UnusedKeyWrapProvider : EncryptionKeyWrapProvider
    {
        public static readonly UnusedKeyWrapProvider Instance = new();

        public override Task<EncryptionKeyWrapResult> WrapKeyAsync(ReadOnlyMemory<byte> key, EncryptionKeyWrapMetadata metadata, CancellationToken cancellationToken = default) =>
            throw new NotSupportedException();

        public override Task<EncryptionKeyUnwrapResult> UnwrapKeyAsync(ReadOnlyMemory<byte> wrappedKey, EncryptionKeyWrapMetadata metadata, CancellationToken cancellationToken = default) =>
            throw new NotSupportedException();
    }
}

namespace Encryption.Custom;

/// <summary>Options for the <see cref="LocalKeyWrapProvider"/>.</summary>
public sealed class LocalKeyWrapProviderOptions
{
    /// <summary>
    /// How long an unwrapped data encryption key may be cached before it is unwrapped again (the
    /// <see cref="EncryptionKeyUnwrapResult.ClientCacheTimeToLive"/> the provider reports).
    /// Default: 2 hours. <see cref="Timeout.InfiniteTimeSpan"/> caches without limit.
    /// </summary>
    public TimeSpan DataEncryptionKeyCacheTimeToLive { get; set; } = TimeSpan.FromHours(2);

    /// <summary>
    /// Names of the added keys that may wrap and unwrap data encryption keys; a DEK document naming any other key
    /// fails with <see cref="EncryptionErrorKind.KeyUnavailable"/>. Default: empty, which allows every key added to
    /// the provider (a local provider can only use keys the application added). List names when the provider also
    /// holds keys that DEK documents must not be able to choose. Read when the provider is created.
    /// </summary>
    public IList<string> AllowedKeyNames { get; } = new List<string>();
}

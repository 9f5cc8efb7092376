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
}

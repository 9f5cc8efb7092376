
namespace Encryption.Custom.Tests.Keys.TestSupport;

/// <summary>A key-wrap provider over another one, counting calls and able to misbehave on unwrap.</summary>
internal sealed class DelegatingWrapProvider(EncryptionKeyWrapProvider inner) : EncryptionKeyWrapProvider
{
    private int _unwrapCount;
    private int _wrapCount;

    public int UnwrapCount => Volatile.Read(ref _unwrapCount);

    public int WrapCount => Volatile.Read(ref _wrapCount);

    /// <summary>When set, unwrap returns this instead of the real key (a provider that answers with the wrong key).</summary>
    public byte[]? UnwrapReplacement { get; set; }

    /// <summary>When set, unwrap throws it.</summary>
    public Exception? UnwrapFailure { get; set; }

    public override Task<EncryptionKeyWrapResult> WrapKeyAsync(ReadOnlyMemory<byte> key, EncryptionKeyWrapMetadata metadata, CancellationToken cancellationToken = default)
    {
        Interlocked.Increment(ref _wrapCount);
        return inner.WrapKeyAsync(key, metadata, cancellationToken);
    }

    public override async Task<EncryptionKeyUnwrapResult> UnwrapKeyAsync(ReadOnlyMemory<byte> wrappedKey, EncryptionKeyWrapMetadata metadata, CancellationToken cancellationToken = default)
    {
        Interlocked.Increment(ref _unwrapCount);
        if (UnwrapFailure is { } failure)
        {
            throw failure;
        }

        EncryptionKeyUnwrapResult result = await inner.UnwrapKeyAsync(wrappedKey, metadata, cancellationToken);
        if (UnwrapReplacement is { } replacement)
        {
            TimeSpan timeToLive = result.ClientCacheTimeToLive;
            result.Dispose();
            return new EncryptionKeyUnwrapResult((byte[])replacement.Clone(), timeToLive);
        }

        return result;
    }
}

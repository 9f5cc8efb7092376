using Encryption.Custom.Cosmos;
using Encryption.Custom.Cosmos.Processing;
using Encryption.Custom.Cosmos.Streams;
using Encryption.Custom.Crypto.Pooling;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Migration.Copy;

/// <summary>
/// The two ends of a copy, each seen through the library's own encryption container: the source with the source
/// policy (its decrypting path reads every stored document into plaintext in memory) and the target with the target
/// policy (its encrypting path writes, and addresses, every copy as that policy says). Nothing in the copy encrypts,
/// decrypts or maps an id or a partition key itself, so a policy that encrypts them changes nothing here.
/// </summary>
internal sealed class CopyEnds
{
    /// <exception cref="ArgumentException">The source and target are the same container.</exception>
    public CopyEnds(Container source, ContainerEncryptionPolicy? sourcePolicy, Container target, ContainerEncryptionPolicy? targetPolicy, Encryptor encryptor, JsonProcessor processor)
    {
        if (string.Equals(source.Database.Id, target.Database.Id, StringComparison.Ordinal) && string.Equals(source.Id, target.Id, StringComparison.Ordinal))
        {
            throw new ArgumentException("The copy's target is its source container: to change documents in place, use the constructor without a target container.", nameof(target));
        }

        Source = source;
        SourcePolicy = sourcePolicy;
        Target = target;
        var sourceView = (EncryptionContainer)source.WithEncryptor(encryptor, new EncryptionContainerOptions { Policy = sourcePolicy, JsonProcessor = processor });
        SourceCrypto = sourceView.Crypto;
        TargetView = target.WithEncryptor(encryptor, new EncryptionContainerOptions { Policy = targetPolicy, JsonProcessor = processor });
    }

    /// <summary>The source container as the SDK gives it (the change feed, the scans and re-reads of stored documents).</summary>
    public Container Source { get; }

    /// <summary>The source container's partition key paths (of the stored documents), read by the job's preparation.</summary>
    public IReadOnlyList<string> SourcePartitionKeyPaths { get; set; } = [];

    /// <summary>
    /// The target state (bound to the target container when the target policy binds), which also says which keys a
    /// source document may be read with (<see cref="MigrationTarget.AcceptsSourceKey"/>); set by the job's preparation.
    /// </summary>
    public MigrationTarget TargetState { get; set; } = null!;

    /// <summary>The policy the source's documents are read with.</summary>
    public ContainerEncryptionPolicy? SourcePolicy { get; }

    /// <summary>The source's decrypting path (the source container's own, so a binding source policy is bound to it).</summary>
    public BodyCrypto SourceCrypto { get; }

    /// <summary>The target container as the SDK gives it (for the status scan of what it stores).</summary>
    public Container Target { get; }

    /// <summary>The target through an encrypting container with the target policy.</summary>
    public Container TargetView { get; }

    /// <summary>The target container's partition key paths (one, or several for a hierarchical key), read by the job's preparation.</summary>
    public IReadOnlyList<string> TargetPartitionKeyPaths { get; set; } = [];

    /// <summary>
    /// A stored source document as the copy writes it, and the verification compares it: decrypted through the
    /// source's own decrypting path, without the service's properties (the target's are its own).
    /// </summary>
    /// <exception cref="EncryptionException">The document cannot be decrypted.</exception>
    public async Task<PooledContentStream> DecryptSourceAsync(byte[] stored, CancellationToken cancellationToken)
    {
        using var content = new MemoryStream(stored, writable: false);
        using PooledContentStream decrypted = await SourceCrypto.DecryptDocumentAsync(content, null, cancellationToken).ConfigureAwait(false);
        PooledBufferWriter stripped = PooledBufferWriterPool.Rent();
        try
        {
            SystemProperties.CopyWithout(decrypted.Content.Span, stripped);
        }
        catch
        {
            PooledBufferWriterPool.Return(stripped);
            throw;
        }

        return new PooledContentStream(stripped);
    }
}

using Encryption.Custom.Cosmos.Lookups;
using Encryption.Custom.Cosmos.Processing;
using Encryption.Custom.Cosmos.Queries;
using Encryption.Custom.Cosmos.Serialization;
using Encryption.Custom.Json.WireFormat;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos;

/// <summary>
/// A <see cref="Container"/> that encrypts item bodies on the way out (when a request's
/// <see cref="EncryptionItemRequestOptions.EncryptionOptions"/> say so) and decrypts whatever is encrypted on the
/// way in: point reads, write responses, query, read-many and change feed pages, batch results. Every member that
/// carries no documents delegates to the wrapped container.
/// </summary>
/// <remarks>
/// Typed operations serialize with the client's serializer and build their responses through the client's
/// <see cref="CosmosClient.ResponseFactory"/>, so responses, headers, diagnostics and exceptions are those of the
/// SDK. Safe for concurrent use, like the container it wraps.
/// </remarks>
internal sealed partial class EncryptionContainer : Container
{
    private readonly Container _inner;
    private readonly CosmosResponseFactory _responseFactory;
    private readonly PartitionKeyGuard _partitionKeyGuard;
    private readonly bool _clientHasAvailabilityStrategy;
    private readonly int _patchMaxAttempts;
    private readonly bool _patchFallbackToReplace;
    private volatile PatchBoundOptions? _patchBoundOptions;

    public EncryptionContainer(Container inner, Encryptor encryptor, EncryptionContainerOptions? options)
    {
        _inner = inner;
        options ??= new EncryptionContainerOptions();
        CosmosClient client = inner.Database.Client;
        CosmosClientOptions clientOptions = client.ClientOptions;
        _responseFactory = client.ResponseFactory;
        Serializer = ItemSerializers.For(clientOptions);
        _clientHasAvailabilityStrategy = clientOptions.AvailabilityStrategy is not null;
        _partitionKeyGuard = new PartitionKeyGuard(inner);
        Crypto = new BodyCrypto(encryptor, options.JsonProcessor, options.ProcessorOptions, options.Policy, ResolveBindingTargetAsync);
        WriteOptions = new WriteOptionsResolver(options.Policy);
        Policy = options.Policy;
        QueryGuard = new QueryGuard(options.Policy, encryptor, Serializer);
        Lookups = new LookupKeys(options.Policy?.Rules, encryptor, _partitionKeyGuard);
        _patchMaxAttempts = options.PatchMaxAttempts;
        _patchFallbackToReplace = options.PatchFallbackToReplace;
    }

    /// <summary>The wrapped container.</summary>
    internal Container Inner => _inner;

    /// <summary>Encryption and decryption of bodies for this container.</summary>
    internal BodyCrypto Crypto { get; }

    /// <summary>Decides what each write encrypts (the request's options or the policy).</summary>
    internal WriteOptionsResolver WriteOptions { get; }

    /// <summary>The container's encryption policy, or <see langword="null"/>.</summary>
    internal ContainerEncryptionPolicy? Policy { get; }

    /// <summary>The client's item serializer.</summary>
    internal CosmosSerializer Serializer { get; }

    /// <summary>The client's response factory.</summary>
    internal CosmosResponseFactory ResponseFactory => _responseFactory;

    /// <summary>Turns the ids and partition keys of lookups into the stored ones when the policy encrypts them.</summary>
    internal LookupKeys Lookups { get; }

    /// <summary>Validates encryption options against the partition key (read once).</summary>
    internal PartitionKeyGuard PartitionKeyGuard => _partitionKeyGuard;

    public override string Id => _inner.Id;

    /// <summary>
    /// Where this container's bound documents live: "&lt;database id&gt;/&lt;container id&gt;" and the partition-key
    /// paths the partition key guard reads (one read serves both).
    /// </summary>
    private async ValueTask<BindingTarget> ResolveBindingTargetAsync(CancellationToken cancellationToken)
    {
        IReadOnlyList<string> paths = await _partitionKeyGuard.GetPartitionKeyPathsAsync(cancellationToken).ConfigureAwait(false);
        if (Policy?.Commit == true)
        {
            // A merge made by multi-region conflict resolution never recomputes the commitment (docs/wire-format.md).
            AccountProperties account = await _inner.Database.Client.ReadAccountAsync().ConfigureAwait(false);
            if (account.WritableRegions.Count() > 1)
            {
                throw new EncryptionException(
                    EncryptionErrorKind.InvalidOptions,
                    "The container's encryption policy commits documents (Commit), which is not supported on an account with several write regions: conflict resolution could merge versions without recomputing the commitment.");
            }
        }

        return new BindingTarget($"{_inner.Database.Id}/{_inner.Id}", paths) { Commit = Policy?.Commit == true };
    }

    public override Database Database => _inner.Database;

    public override Conflicts Conflicts => _inner.Conflicts;

    public override Microsoft.Azure.Cosmos.Scripts.Scripts Scripts => _inner.Scripts;

    /// <summary>The encryption options a request carries, if any.</summary>
    internal static EncryptionOptions? GetEncryptionOptions(RequestOptions? requestOptions) =>
        (requestOptions as EncryptionItemRequestOptions)?.EncryptionOptions;

    /// <summary>What a point write encrypts: the request's options (checked against the policy) or the policy's.</summary>
    /// <exception cref="EncryptionException">The request's options are refused (<see cref="EncryptionErrorKind.InvalidOptions"/>).</exception>
    internal EncryptionOptions? ResolveWriteOptions(RequestOptions? requestOptions) =>
        WriteOptions.Resolve(GetEncryptionOptions(requestOptions));

    /// <summary>
    /// Whether an encrypted request body may go back to the pool when the operation ends: not when an
    /// availability strategy may still send a hedged copy of the request afterwards.
    /// </summary>
    internal bool CanRecycleBody(RequestOptions? requestOptions) =>
        !_clientHasAvailabilityStrategy && requestOptions?.AvailabilityStrategy is null;

    public override Task<ContainerResponse> ReadContainerAsync(ContainerRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        _inner.ReadContainerAsync(requestOptions, cancellationToken);

    public override Task<ResponseMessage> ReadContainerStreamAsync(ContainerRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        _inner.ReadContainerStreamAsync(requestOptions, cancellationToken);

    public override Task<ContainerResponse> ReplaceContainerAsync(ContainerProperties containerProperties, ContainerRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        _inner.ReplaceContainerAsync(containerProperties, requestOptions, cancellationToken);

    public override Task<ResponseMessage> ReplaceContainerStreamAsync(ContainerProperties containerProperties, ContainerRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        _inner.ReplaceContainerStreamAsync(containerProperties, requestOptions, cancellationToken);

    public override Task<ContainerResponse> DeleteContainerAsync(ContainerRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        _inner.DeleteContainerAsync(requestOptions, cancellationToken);

    public override Task<ResponseMessage> DeleteContainerStreamAsync(ContainerRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        _inner.DeleteContainerStreamAsync(requestOptions, cancellationToken);

    public override Task<int?> ReadThroughputAsync(CancellationToken cancellationToken = default) =>
        _inner.ReadThroughputAsync(cancellationToken);

    public override Task<ThroughputResponse> ReadThroughputAsync(RequestOptions requestOptions, CancellationToken cancellationToken = default) =>
        _inner.ReadThroughputAsync(requestOptions, cancellationToken);

    public override Task<ThroughputResponse> ReplaceThroughputAsync(int throughput, RequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        _inner.ReplaceThroughputAsync(throughput, requestOptions, cancellationToken);

    public override Task<ThroughputResponse> ReplaceThroughputAsync(ThroughputProperties throughputProperties, RequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        _inner.ReplaceThroughputAsync(throughputProperties, requestOptions, cancellationToken);

    public override Task<IReadOnlyList<FeedRange>> GetFeedRangesAsync(CancellationToken cancellationToken = default) =>
        _inner.GetFeedRangesAsync(cancellationToken);

    public override async Task<ResponseMessage> DeleteAllItemsByPartitionKeyStreamAsync(PartitionKey partitionKey, RequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        await _inner.DeleteAllItemsByPartitionKeyStreamAsync(await Lookups.EncryptAsync(partitionKey, cancellationToken).ConfigureAwait(false), requestOptions, cancellationToken).ConfigureAwait(false);

    public override ChangeFeedEstimator GetChangeFeedEstimator(string processorName, Container leaseContainer) =>
        _inner.GetChangeFeedEstimator(processorName, leaseContainer);

    public override ChangeFeedProcessorBuilder GetChangeFeedEstimatorBuilder(string processorName, ChangesEstimationHandler estimationDelegate, TimeSpan? estimationPeriod = null) =>
        _inner.GetChangeFeedEstimatorBuilder(processorName, estimationDelegate, estimationPeriod);

    public override IOrderedQueryable<T> GetItemLinqQueryable<T>(
        bool allowSynchronousQueryExecution = false,
        string? continuationToken = null,
        QueryRequestOptions? requestOptions = null,
        CosmosLinqSerializerOptions? linqSerializerOptions = null) =>
        LinqQueryMarker.Mark(
            _inner.GetItemLinqQueryable<T>(allowSynchronousQueryExecution, continuationToken, requestOptions, linqSerializerOptions),
            new LinqQueryState(this, continuationToken, requestOptions));
}

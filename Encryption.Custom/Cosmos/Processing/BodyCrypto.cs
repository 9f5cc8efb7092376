using System.Runtime.CompilerServices;
using Encryption.Custom.Cosmos.Streams;
using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Diagnostics;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Processing;

namespace Encryption.Custom.Cosmos.Processing;

/// <summary>
/// Encrypts request bodies and decrypts response bodies and feed pages for one encryption container, with the
/// container's encryptor and processors, recording telemetry when someone listens. Safe for concurrent use.
/// </summary>
internal sealed class BodyCrypto
{
    private readonly FeedPageDecryptionOptions _failPage = new();
    private readonly int _maxDepth;
    private readonly FeedPageDecryptionOptions _failPageWithContexts = new() { IncludeDecryptionContexts = true };
    private readonly JsonProcessor _processorKind;
    private readonly EncryptionProcessorOptions? _limits;
    private readonly PolicyRuleSet? _rules;
    private readonly Func<CancellationToken, ValueTask<BindingTarget>>? _resolveBinding;
    private volatile EncryptionProcessor? _bound;
    private BindingTarget? _target;
    private volatile BoundOptions? _lastBoundOptions;

    /// <param name="encryptor">Supplies the keys.</param>
    /// <param name="processor">The container's processor.</param>
    /// <param name="limits">The processor's limits.</param>
    /// <param name="policy">The container's policy, checked by the processor on every read; or <see langword="null"/>.</param>
    /// <param name="resolveBinding">
    /// Where the container's documents live (scope and partition-key paths), asked once before the first body is
    /// encrypted or decrypted when <paramref name="policy"/> binds; <see langword="null"/> when nothing is bound (migration).
    /// </param>
    public BodyCrypto(
        Encryptor encryptor,
        JsonProcessor processor,
        EncryptionProcessorOptions? limits,
        ContainerEncryptionPolicy? policy,
        Func<CancellationToken, ValueTask<BindingTarget>>? resolveBinding = null)
    {
        Encryptor = encryptor;
        _maxDepth = limits?.MaxDepth ?? EncryptionProcessorOptions.DefaultMaxDepth;
        _processorKind = processor;
        _limits = limits;
        _rules = policy?.Rules;
        _resolveBinding = resolveBinding;
        Processor = EncryptionProcessor.Create(processor, limits, _rules);
        if (_rules?.Binds != true)
        {
            _bound = Processor;
        }
    }

    public Encryptor Encryptor { get; }

    /// <summary>The processor kind the container's processors are made of (a migration's bound reader is one too).</summary>
    public JsonProcessor ProcessorKind => _processorKind;

    /// <summary>
    /// The container's processor as built from the policy alone (<see cref="EncryptionContainerOptions.JsonProcessor"/>):
    /// under a policy that binds it has no container yet, so it refuses writes and bound reads (fail closed). Bodies go
    /// through <see cref="GetProcessorAsync"/>; this one serves limits and patch values (patch refuses encrypted paths
    /// under a binding policy).
    /// </summary>
    public EncryptionProcessor Processor { get; }

    /// <summary>
    /// The processor every body of the container goes through: <see cref="Processor"/>, or under a policy that binds,
    /// one whose rules are bound to the container (resolved on first use; a failed resolution is not cached, so a
    /// transient read failure fails that operation only).
    /// </summary>
    /// <exception cref="Microsoft.Azure.Cosmos.CosmosException">The container's definition could not be read.</exception>
    /// <exception cref="EncryptionException">The container cannot be bound (for example a nested partition-key path).</exception>
    public ValueTask<EncryptionProcessor> GetProcessorAsync(CancellationToken cancellationToken)
    {
        EncryptionProcessor? bound = _bound;
        return bound is not null ? ValueTask.FromResult(bound) : BindAsync(cancellationToken);
    }

    /// <summary>
    /// The metadata of a stored document or of a body about to be sent, read by the processors' own envelope reader
    /// with this container's depth limit (patch and batch encrypt new values the way the document is).
    /// </summary>
    /// <returns>The metadata, or <see langword="null"/> when the document is not encrypted.</returns>
    /// <exception cref="EncryptionException">The document or its metadata cannot be read, or names an unsupported format.</exception>
    public EnvelopeMetadata? ReadMetadata(ReadOnlySpan<byte> document) => EnvelopeReader.ReadMetadata(document, _maxDepth);

    /// <summary>Encrypts <paramref name="input"/> into a pooled request body.</summary>
    /// <param name="input">The plaintext document: a seekable stream whole, as the SDK would send it (<see cref="RequestPayload"/>).</param>
    /// <param name="options">What to encrypt (already validated by the caller).</param>
    /// <param name="recycle">Whether the body's buffer may go back to the pool once the caller disposes it.</param>
    /// <param name="telemetry">The operation's telemetry, or <see langword="null"/>.</param>
    /// <param name="cancellationToken">Cancels the work.</param>
    /// <exception cref="EncryptionException">The document or the options are invalid, or the key is unavailable.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<EncryptedRequestBody> EncryptAsync(
        Stream input,
        EncryptionOptions options,
        bool recycle,
        OperationTelemetry? telemetry,
        CancellationToken cancellationToken)
    {
        EncryptionProcessor processor = await GetProcessorAsync(cancellationToken).ConfigureAwait(false);
        options = Bind(options);
        RequestPayload.FromStart(input);
        long start = telemetry is null ? 0 : OperationTelemetry.Timestamp();
        long inputLength = telemetry is not null && input.CanSeek ? input.Length - input.Position : -1;
        PooledBufferWriter buffer = PooledBufferWriterPool.Rent();
        try
        {
            await processor.EncryptAsync(input, buffer, Encryptor, options, cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            // An incomplete prefix may hold plaintext: returning the writer zeroes it.
            PooledBufferWriterPool.Return(buffer);
            throw;
        }

        var body = new EncryptedRequestBody(buffer, recycle);
        if (EncryptionTelemetry.AbsentPaths.Enabled)
        {
            // Absent or null in this document (documents vary): not an error, but a count worth watching.
            EncryptionTelemetry.RecordAbsentPaths(options.GetPlan().PathCount - CountPaths(body.Content.Span));
        }

        if (telemetry is not null)
        {
            int properties = telemetry.WantsDetails ? CountPaths(body.Content.Span) : -1;
            telemetry.RecordEncrypt(start, ProcessorName(processor), inputLength >= 0 ? inputLength : body.Length, options.DataEncryptionKeyId, properties);
        }

        return body;
    }

    /// <summary>Decrypts one document body into a pooled stream (which the caller owns).</summary>
    /// <exception cref="EncryptionException">The document cannot be decrypted.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<PooledContentStream> DecryptDocumentAsync(
        Stream content,
        OperationTelemetry? telemetry,
        CancellationToken cancellationToken)
    {
        EncryptionProcessor processor = await GetProcessorAsync(cancellationToken).ConfigureAwait(false);
        long start = telemetry is null ? 0 : OperationTelemetry.Timestamp();
        long inputLength = telemetry is not null && content.CanSeek ? content.Length - content.Position : 0;
        PooledBufferWriter buffer = PooledBufferWriterPool.Rent();
        DecryptionContext? context;
        try
        {
            bool wantsContext = telemetry?.WantsDetails == true;
            context = await processor.DecryptAsync(content, buffer, Encryptor, wantsContext, cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            PooledBufferWriterPool.Return(buffer);
            throw;
        }

        if (telemetry is not null)
        {
            telemetry.RecordDecrypt(start, ProcessorName(processor), inputLength, context is null ? 0 : 1, 0);
            AddContext(telemetry, context);
        }

        return new PooledContentStream(buffer);
    }

    /// <summary>Decrypts a feed page into a pooled stream (which the caller owns); a document that fails fails the page.</summary>
    /// <exception cref="EncryptionException">The page is malformed or one of its documents cannot be decrypted.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<PooledContentStream> DecryptPageAsync(
        Stream content,
        OperationTelemetry? telemetry,
        CancellationToken cancellationToken)
    {
        EncryptionProcessor processor = await GetProcessorAsync(cancellationToken).ConfigureAwait(false);
        long start = telemetry is null ? 0 : OperationTelemetry.Timestamp();
        long inputLength = telemetry is not null && content.CanSeek ? content.Length - content.Position : 0;
        FeedPageDecryptionOptions options = telemetry?.WantsDetails == true ? _failPageWithContexts : _failPage;
        PooledBufferWriter buffer = PooledBufferWriterPool.Rent();
        FeedPageDecryptionResult result;
        try
        {
            result = await processor.DecryptFeedPageAsync(content, buffer, Encryptor, options, cancellationToken).ConfigureAwait(false);
        }
        catch (EncryptionException)
        {
            PooledBufferWriterPool.Return(buffer);
            telemetry?.RecordDecrypt(start, ProcessorName(processor), inputLength, 0, 1);
            throw;
        }
        catch
        {
            PooledBufferWriterPool.Return(buffer);
            throw;
        }

        if (telemetry is not null)
        {
            telemetry.RecordDecrypt(start, ProcessorName(processor), inputLength, result.DecryptedCount, result.Failures.Count);
            if (result.DecryptionContexts is { } contexts)
            {
                for (int i = 0; i < contexts.Count; i++)
                {
                    AddContext(telemetry, contexts[i]);
                }
            }
        }

        return new PooledContentStream(buffer);
    }

    // Concurrent first operations may each bind: harmless (same container, same result) and lock-free, like the
    // partition-key read it rests on; a cached Task would instead carry the first caller's cancellation to all.
    private async ValueTask<EncryptionProcessor> BindAsync(CancellationToken cancellationToken)
    {
        if (_resolveBinding is null)
        {
            // Fail closed: a binding policy without a container to bind to refuses writes and bound reads.
            return Processor;
        }

        BindingTarget target = await _resolveBinding(cancellationToken).ConfigureAwait(false);
        EncryptionProcessor bound = EncryptionProcessor.Create(_processorKind, _limits, _rules!.BindTo(target));
        _target = target;
        _bound = bound; // volatile write after _target: whoever sees the processor sees its target
        return bound;
    }

    // Every write of a container whose policy binds is bound here, whatever chose its options (the policy, or a
    // request's own options that cover it): the one place that encrypts bodies, so nothing is written unbound.
    private EncryptionOptions Bind(EncryptionOptions options)
    {
        if (_rules?.Binds != true)
        {
            return options;
        }

        BindingTarget target = _target ?? throw new EncryptionException(
            EncryptionErrorKind.InvalidOptions,
            "The encryption policy binds values to their document (Bind), but no container's scope and partition-key paths are known here: nothing is written unbound in its place.",
            options.DataEncryptionKeyId);
        if (ReferenceEquals(options.Binding, target))
        {
            return options;
        }

        // The policy's options are one instance for every write: keep its bound copy (and its compiled plan). The
        // options type is mutable, so a hit must also match what the copy took (its plan rechecks the paths' content).
        BoundOptions? last = _lastBoundOptions;
        if (last is not null
            && ReferenceEquals(last.Source, options)
            && last.Bound.DataEncryptionKeyId == options.DataEncryptionKeyId
            && last.Bound.EncryptionAlgorithm == options.EncryptionAlgorithm
            && ReferenceEquals(last.Bound.PathsToEncrypt, options.PathsToEncrypt)
            && ReferenceEquals(last.Bound.DeterministicPaths, options.DeterministicPaths)
            && ReferenceEquals(last.Bound.QueryTokens, options.QueryTokens))
        {
            return last.Bound;
        }

        EncryptionOptions bound = options.WithBinding(target);
        _lastBoundOptions = new BoundOptions(options, bound);
        return bound;
    }

    private sealed record BoundOptions(EncryptionOptions Source, EncryptionOptions Bound);

    /// <summary>The name recorded for <paramref name="processor"/>.</summary>
    public static string ProcessorName(EncryptionProcessor processor) =>
        processor is NewtonsoftProcessor ? nameof(JsonProcessor.Newtonsoft) : nameof(JsonProcessor.Stream);

    private static void AddContext(OperationTelemetry telemetry, DecryptionContext? context)
    {
        if (context is null)
        {
            return;
        }

        IReadOnlyList<DecryptionInfo> infos = context.DecryptionInfoList;
        for (int i = 0; i < infos.Count; i++)
        {
            telemetry.AddDecrypted(infos[i].DataEncryptionKeyId, infos[i].PathsDecrypted.Count);
        }
    }

    // How many paths the body's _ep lists, or -1 when it has no readable metadata (telemetry only).
    private int CountPaths(ReadOnlySpan<byte> body)
    {
        try
        {
            return ReadMetadata(body)?.Paths.Count ?? -1;
        }
        catch (EncryptionException)
        {
            return -1;
        }
    }
}

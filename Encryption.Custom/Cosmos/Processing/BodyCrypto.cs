using System.Runtime.CompilerServices;

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

    /// <param name="encryptor">Supplies the keys.</param>
    /// <param name="processor">The container's processor.</param>
    /// <param name="limits">The processor's limits.</param>
    /// <param name="policy">The container's policy, checked by the processor on every read; or <see langword="null"/>.</param>
    public BodyCrypto(Encryptor encryptor, JsonProcessor processor, EncryptionProcessorOptions? limits, ContainerEncryptionPolicy? policy)
    {
        Encryptor = encryptor;
        _maxDepth = limits?.MaxDepth ?? EncryptionProcessorOptions.DefaultMaxDepth;
        Processor = EncryptionProcessor.Create(processor, limits, policy?.Rules);
    }

    public Encryptor Encryptor { get; }

    /// <summary>
    /// The container's processor (<see cref="EncryptionContainerOptions.JsonProcessor"/>): it encrypts every
    /// request body and decrypts every response, page and patch value of the container (docs/public-api.md).
    /// </summary>
    public EncryptionProcessor Processor { get; }

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
        EncryptionProcessor processor = Processor;
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
        EncryptionProcessor processor = Processor;
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
        EncryptionProcessor processor = Processor;
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

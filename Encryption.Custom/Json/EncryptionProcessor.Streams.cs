using System.Buffers;
using System.Runtime.CompilerServices;
using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Json.Leasing;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Processing;

/// <summary>The <see cref="Stream"/> overloads, shared by both processors: read the input into one pooled buffer, work, then write.</summary>
public abstract partial class EncryptionProcessor
{
    /// <summary>
    /// Copies a finished result to a destination stream. Cancellation is observed before the copy starts, not in
    /// the middle of it: a stream cannot take back what it sent, so the destination gets all of the result or none
    /// of it. (A destination that fails on its own part-way, such as a broken connection, can still hold a prefix.)
    /// </summary>
    private static async ValueTask WriteResultAsync(Stream output, PooledBufferWriter buffer, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        await output.WriteAsync(buffer.WrittenMemory, CancellationToken.None).ConfigureAwait(false);
    }

    /// <summary>
    /// Reads a UTF-8 JSON document from <paramref name="input"/> (from its position to its end), resolves the key
    /// named by <paramref name="options"/> and writes the encrypted document to <paramref name="output"/>.
    /// Nothing is written to <paramref name="output"/> unless everything succeeded.
    /// </summary>
    /// <param name="input">The document.</param>
    /// <param name="output">Receives the encrypted document.</param>
    /// <param name="encryptor">Supplies the key.</param>
    /// <param name="options">What to encrypt, with which key.</param>
    /// <param name="cancellationToken">Checked between chunks, before and after the key lookup. Not observed while the result is being written: the destination gets all of it or nothing.</param>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="EncryptionException">As <see cref="Encrypt"/>; also when the key is unavailable.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    public virtual async ValueTask EncryptAsync(Stream input, Stream output, Encryptor encryptor, EncryptionOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(output);
        PooledBufferWriter buffer = PooledBufferWriterPool.Rent();
        try
        {
            await EncryptAsync(input, buffer, encryptor, options, cancellationToken).ConfigureAwait(false);
            await WriteResultAsync(output, buffer, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            PooledBufferWriterPool.Return(buffer);
        }
    }

    /// <summary>
    /// Reads a UTF-8 JSON document from <paramref name="input"/>, resolves the key named by
    /// <paramref name="options"/> and writes the encrypted document to <paramref name="output"/> (see the class
    /// remarks for what the writer holds after a failure).
    /// </summary>
    /// <param name="input">The document.</param>
    /// <param name="output">Receives the encrypted document.</param>
    /// <param name="encryptor">Supplies the key.</param>
    /// <param name="options">What to encrypt, with which key.</param>
    /// <param name="cancellationToken">Checked between chunks, before and after the key lookup.</param>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="EncryptionException">As <see cref="Encrypt"/>; also when the key is unavailable.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    public virtual async ValueTask EncryptAsync(Stream input, IBufferWriter<byte> output, Encryptor encryptor, EncryptionOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(encryptor);
        ArgumentNullException.ThrowIfNull(options);

        // Options are validated before any input is read.
        EncryptionPlan plan = options.GetPlan();
        using InputBuffer source = await InputBuffer.ReadAsync(input, MaxDocumentLength, cancellationToken).ConfigureAwait(false);
        if (plan.PathCount == 0)
        {
            output.Write(source.Memory.Span);
            return;
        }

        using DataEncryptionKeyLease lease = await KeyResolver.LeaseAsync(encryptor, plan.DataEncryptionKeyId, plan.EncryptionAlgorithm, cancellationToken).ConfigureAwait(false);
        cancellationToken.ThrowIfCancellationRequested();
        EncryptLeased(source.Memory.Span, output, lease.Key, options);
    }

    /// <summary>
    /// Reads a UTF-8 JSON document from <paramref name="input"/> and writes it decrypted to
    /// <paramref name="output"/>. Nothing is written to <paramref name="output"/> unless everything succeeded.
    /// </summary>
    /// <param name="input">The document.</param>
    /// <param name="output">Receives the decrypted document.</param>
    /// <param name="encryptor">Supplies the key the document names.</param>
    /// <param name="includeDecryptionContext">Whether to return what was decrypted.</param>
    /// <param name="cancellationToken">Checked between chunks, before and after the key lookup. Not observed while the result is being written: the destination gets all of it or nothing.</param>
    /// <returns>The context when asked for and the document was encrypted; otherwise <see langword="null"/>.</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="EncryptionException">As <see cref="Decrypt"/>.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public virtual async ValueTask<DecryptionContext?> DecryptAsync(
        Stream input,
        Stream output,
        Encryptor encryptor,
        bool includeDecryptionContext = false,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(output);
        PooledBufferWriter buffer = PooledBufferWriterPool.Rent();
        try
        {
            DecryptionContext? context = await DecryptAsync(input, buffer, encryptor, includeDecryptionContext, cancellationToken).ConfigureAwait(false);
            await WriteResultAsync(output, buffer, cancellationToken).ConfigureAwait(false);
            return context;
        }
        finally
        {
            // The buffer held plaintext: returning it zeroes it.
            PooledBufferWriterPool.Return(buffer);
        }
    }

    /// <summary>
    /// Reads a UTF-8 JSON document from <paramref name="input"/> and writes it decrypted to
    /// <paramref name="output"/> (see the class remarks for what the writer holds after a failure).
    /// </summary>
    /// <param name="input">The document.</param>
    /// <param name="output">Receives the decrypted document.</param>
    /// <param name="encryptor">Supplies the key the document names.</param>
    /// <param name="includeDecryptionContext">Whether to return what was decrypted.</param>
    /// <param name="cancellationToken">Checked between chunks, before and after the key lookup.</param>
    /// <returns>The context when asked for and the document was encrypted; otherwise <see langword="null"/>.</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="EncryptionException">As <see cref="Decrypt"/>.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public virtual async ValueTask<DecryptionContext?> DecryptAsync(
        Stream input,
        IBufferWriter<byte> output,
        Encryptor encryptor,
        bool includeDecryptionContext = false,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(encryptor);
        using InputBuffer source = await InputBuffer.ReadAsync(input, MaxDocumentLength, cancellationToken).ConfigureAwait(false);
        return await DecryptCoreAsync(source.Memory, output, encryptor, includeDecryptionContext, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Reads a feed page from <paramref name="input"/> and writes it decrypted to <paramref name="output"/>
    /// (see <see cref="DecryptFeedPage"/>, and the class remarks for what the writer holds after a failure).
    /// </summary>
    /// <param name="input">The page.</param>
    /// <param name="output">Receives the decrypted page.</param>
    /// <param name="encryptor">Supplies the keys.</param>
    /// <param name="options">Failure handling and contexts; <see langword="null"/> for the defaults.</param>
    /// <param name="cancellationToken">Checked between chunks and between documents.</param>
    /// <returns>As <see cref="DecryptFeedPage"/>.</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="EncryptionException">As <see cref="DecryptFeedPage"/>.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public virtual async ValueTask<FeedPageDecryptionResult> DecryptFeedPageAsync(
        Stream input,
        IBufferWriter<byte> output,
        Encryptor encryptor,
        FeedPageDecryptionOptions? options = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(encryptor);
        using InputBuffer source = await InputBuffer.ReadAsync(input, MaxDocumentLength, cancellationToken).ConfigureAwait(false);
        return await DecryptFeedPageCoreAsync(source.Memory, output, encryptor, options ?? s_defaultFeedOptions, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Reads a feed page from <paramref name="input"/> and writes it decrypted to <paramref name="output"/>
    /// (see <see cref="DecryptFeedPage"/>). Nothing is written to <paramref name="output"/> unless the page succeeded.
    /// </summary>
    /// <param name="input">The page.</param>
    /// <param name="output">Receives the decrypted page.</param>
    /// <param name="encryptor">Supplies the keys.</param>
    /// <param name="options">Failure handling and contexts; <see langword="null"/> for the defaults.</param>
    /// <param name="cancellationToken">Checked between chunks and between documents. Not observed while the result is being written: the destination gets all of it or nothing.</param>
    /// <returns>As <see cref="DecryptFeedPage"/>.</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="EncryptionException">As <see cref="DecryptFeedPage"/>.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public virtual async ValueTask<FeedPageDecryptionResult> DecryptFeedPageAsync(
        Stream input,
        Stream output,
        Encryptor encryptor,
        FeedPageDecryptionOptions? options = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(encryptor);
        using InputBuffer source = await InputBuffer.ReadAsync(input, MaxDocumentLength, cancellationToken).ConfigureAwait(false);
        PooledBufferWriter buffer = PooledBufferWriterPool.Rent();
        try
        {
            FeedPageDecryptionResult result = await DecryptFeedPageCoreAsync(source.Memory, buffer, encryptor, options ?? s_defaultFeedOptions, cancellationToken).ConfigureAwait(false);
            await WriteResultAsync(output, buffer, cancellationToken).ConfigureAwait(false);
            return result;
        }
        finally
        {
            PooledBufferWriterPool.Return(buffer);
        }
    }
}

using System.Buffers;
using System.Runtime.CompilerServices;
using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Json.Leasing;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Processing;

/// <summary>
/// The product processor: System.Text.Json's <c>Utf8JsonReader</c> over the whole UTF-8 input, without a
/// document model. Bytes that are not encrypted or decrypted are copied verbatim (never re-escaped); encrypted
/// values are written as base64 straight into the output. No allocation per operation once warm (with the
/// <see cref="IBufferWriter{T}"/> overloads and an encryptor that answers from its cache).
/// </summary>
/// <remarks>
/// Numbers: an integer literal that fits int64 is encrypted as a long (marker 4), any other number as a double
/// (marker 3); an integer literal beyond int64 is rejected. Decrypted doubles are written with ".0" when they
/// look integral, as Newtonsoft.Json writes them.
/// </remarks>
public sealed class StreamProcessor : EncryptionProcessor
{
    /// <summary>Creates the processor.</summary>
    /// <param name="options">The limits; <see langword="null"/> for the defaults.</param>
    public StreamProcessor(EncryptionProcessorOptions? options = null)
        : base(options)
    {
    }

    /// <inheritdoc/>
    public override void Encrypt(ReadOnlySpan<byte> document, IBufferWriter<byte> output, DataEncryptionKey key, EncryptionOptions options)
    {
        EncryptionPlan plan = PrepareEncrypt(document.Length, output, key, options);
        using DataEncryptionKeyLease lease = DataEncryptionKeyLease.Acquire(key);
        StreamEncryptor.Encrypt(document, output, key, plan, MaxDepth, MaxDocumentLength);
    }

    internal override void EncryptLeased(ReadOnlySpan<byte> document, IBufferWriter<byte> output, DataEncryptionKey key, EncryptionOptions options) =>
        StreamEncryptor.Encrypt(document, output, key, PrepareEncrypt(document.Length, output, key, options), MaxDepth, MaxDocumentLength);

    /// <inheritdoc/>
    public override DecryptionContext? Decrypt(ReadOnlySpan<byte> document, IBufferWriter<byte> output, Encryptor encryptor, bool includeDecryptionContext = false)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(encryptor);
        CheckLength(document.Length);
        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            if (!ScanAndPrepare(document, scan, encryptor))
            {
                output.Write(document);
                return null;
            }

            ref DocumentRecord record = ref scan.Documents[0];
            using DataEncryptionKeyLease lease = KeyResolver.Lease(encryptor, record.KeyId!, record.Algorithm!);
            return WriteDecrypted(document, scan, lease.Key, output, includeDecryptionContext);
        }
        finally
        {
            DecryptionScan.Return(scan);
        }
    }

    /// <inheritdoc/>
    public override FeedPageDecryptionResult DecryptFeedPage(ReadOnlySpan<byte> page, IBufferWriter<byte> output, Encryptor encryptor, FeedPageDecryptionOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(encryptor);
        CheckLength(page.Length);
        options ??= DefaultFeedOptions;
        DecryptionScan scan = DecryptionScan.Rent();
        PooledBufferWriter buffer = output as PooledBufferWriter ?? PooledBufferWriterPool.Rent();
        try
        {
            DocumentScanner.ScanFeedPage(page, scan, MaxDepth);
            var session = new FeedPageSession(options, Rules, encryptor);
            for (int i = 0; i < scan.DocumentCount; i++)
            {
                if (!session.TryPrepare(page, scan, i))
                {
                    continue;
                }

                ref DocumentRecord record = ref scan.Documents[i];
                DataEncryptionKeyLease lease;
                try
                {
                    lease = KeyResolver.Lease(encryptor, record.KeyId!, record.Algorithm!);
                }
                catch (EncryptionException exception)
                {
                    session.Fail(page, scan, i, exception);
                    continue;
                }

                using (lease)
                {
                    session.WriteDocument(page, scan, i, lease.Key, buffer, MaxDepth);
                }
            }

            session.Finish(page, buffer);
            if (!ReferenceEquals(buffer, output))
            {
                output.Write(buffer.WrittenSpan);
            }

            return session.ToResult(scan);
        }
        finally
        {
            if (!ReferenceEquals(buffer, output))
            {
                PooledBufferWriterPool.Return(buffer);
            }

            DecryptionScan.Return(scan);
        }
    }

    /// <inheritdoc/>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    protected override async ValueTask<DecryptionContext?> DecryptCoreAsync(
        ReadOnlyMemory<byte> document,
        IBufferWriter<byte> output,
        Encryptor encryptor,
        bool includeDecryptionContext,
        CancellationToken cancellationToken)
    {
        CheckLength(document.Length);
        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            if (!ScanAndPrepare(document.Span, scan, encryptor))
            {
                output.Write(document.Span);
                return null;
            }

            DocumentRecord record = scan.Documents[0];
            using DataEncryptionKeyLease lease = await KeyResolver.LeaseAsync(encryptor, record.KeyId!, record.Algorithm!, cancellationToken).ConfigureAwait(false);
            cancellationToken.ThrowIfCancellationRequested();
            return WriteDecrypted(document.Span, scan, lease.Key, output, includeDecryptionContext);
        }
        finally
        {
            DecryptionScan.Return(scan);
        }
    }

    /// <inheritdoc/>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    protected override async ValueTask<FeedPageDecryptionResult> DecryptFeedPageCoreAsync(
        ReadOnlyMemory<byte> page,
        IBufferWriter<byte> output,
        Encryptor encryptor,
        FeedPageDecryptionOptions options,
        CancellationToken cancellationToken)
    {
        CheckLength(page.Length);
        DecryptionScan scan = DecryptionScan.Rent();
        PooledBufferWriter buffer = output as PooledBufferWriter ?? PooledBufferWriterPool.Rent();
        try
        {
            DocumentScanner.ScanFeedPage(page.Span, scan, MaxDepth);
            var session = new FeedPageSession(options, Rules, encryptor);
            for (int i = 0; i < scan.DocumentCount; i++)
            {
                cancellationToken.ThrowIfCancellationRequested();
                if (!session.TryPrepare(page.Span, scan, i))
                {
                    continue;
                }

                DataEncryptionKeyLease lease;
                try
                {
                    DocumentRecord record = scan.Documents[i];
                    lease = await KeyResolver.LeaseAsync(encryptor, record.KeyId!, record.Algorithm!, cancellationToken).ConfigureAwait(false);
                }
                catch (EncryptionException exception)
                {
                    session.Fail(page.Span, scan, i, exception);
                    continue;
                }

                using (lease)
                {
                    session.WriteDocument(page.Span, scan, i, lease.Key, buffer, MaxDepth);
                }
            }

            session.Finish(page.Span, buffer);
            if (!ReferenceEquals(buffer, output))
            {
                output.Write(buffer.WrittenSpan);
            }

            return session.ToResult(scan);
        }
        finally
        {
            if (!ReferenceEquals(buffer, output))
            {
                PooledBufferWriterPool.Return(buffer);
            }

            DecryptionScan.Return(scan);
        }
    }

    // Scan, read _ei, check the container's policy; false when the document is not encrypted.
    private bool ScanAndPrepare(ReadOnlySpan<byte> document, DecryptionScan scan, Encryptor encryptor)
    {
        DocumentScanner.ScanDocument(document, scan, MaxDepth);
        bool encrypted = EnvelopeReader.Prepare(document, scan, ref scan.Documents[0]);
        if (Rules is { } rules)
        {
            PolicyScan.Check(document, scan, scan.Documents[0], encrypted, rules, encryptor, nameDocument: true);
        }

        return encrypted;
    }

    private DecryptionContext? WriteDecrypted(ReadOnlySpan<byte> document, DecryptionScan scan, DataEncryptionKey key, IBufferWriter<byte> output, bool includeDecryptionContext)
    {
        ref DocumentRecord record = ref scan.Documents[0];
        output.Write(document[..record.Start]);
        DocumentDecryptor.Write(document, scan, record, key, output, MaxDepth, Rules);
        output.Write(document[record.End..]);
        return includeDecryptionContext ? DecryptionContexts.Build(scan, record) : null;
    }
}

using System.Buffers;
using Encryption.Custom.Json.JTokens;
using Encryption.Custom.Json.Leasing;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Processing;

/// <summary>
/// The baseline processor: parses each document into a Newtonsoft.Json <see cref="JObject"/>, replaces each
/// listed property's token, and serializes the result (the design of Microsoft's package default path). Same
/// results as <see cref="StreamProcessor"/> up to formatting: untouched values are re-serialized, not copied.
/// </summary>
/// <remarks>
/// Accepts only JSON, as <see cref="StreamProcessor"/> does (no comments, trailing commas, <c>NaN</c> or other
/// Newtonsoft.Json extensions). Stricter than <see cref="StreamProcessor"/> in two ways: any repeated property name
/// fails to parse (the stream processor only rejects repeats of the properties it encrypts or decrypts), and a
/// number beyond the range of a double (<c>1e400</c>) is refused, since it would be written back as a string.
/// </remarks>
public sealed class NewtonsoftProcessor : EncryptionProcessor
{
    /// <summary>Creates the processor.</summary>
    /// <param name="options">The limits; <see langword="null"/> for the defaults.</param>
    public NewtonsoftProcessor(EncryptionProcessorOptions? options = null)
        : base(options)
    {
    }

    /// <inheritdoc/>
    public override void Encrypt(ReadOnlySpan<byte> document, IBufferWriter<byte> output, DataEncryptionKey key, EncryptionOptions options)
    {
        EncryptionPlan plan = PrepareEncrypt(document.Length, output, key, options);
        using DataEncryptionKeyLease lease = DataEncryptionKeyLease.Acquire(key);
        Encrypt(document, output, key, plan);
    }

    internal override void EncryptLeased(ReadOnlySpan<byte> document, IBufferWriter<byte> output, DataEncryptionKey key, EncryptionOptions options) =>
        Encrypt(document, output, key, PrepareEncrypt(document.Length, output, key, options));

    /// <inheritdoc/>
    public override DecryptionContext? Decrypt(ReadOnlySpan<byte> document, IBufferWriter<byte> output, Encryptor encryptor, bool includeDecryptionContext = false)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(encryptor);
        CheckLength(document.Length);
        JObject parsed = JObjectReader.ParseObject(document, MaxDepth);
        JEnvelope? envelope = JEnvelope.Read(parsed);
        if (Rules is { } rules)
        {
            JPolicyCheck.Check(parsed, envelope, rules, encryptor, nameDocument: true);
        }

        if (envelope is null)
        {
            output.Write(document);
            return null;
        }

        using DataEncryptionKeyLease lease = KeyResolver.Lease(encryptor, envelope.KeyId, envelope.Algorithm);
        return DecryptAndWrite(parsed, envelope, lease.Key, output, includeDecryptionContext);
    }

    /// <inheritdoc/>
    public override FeedPageDecryptionResult DecryptFeedPage(ReadOnlySpan<byte> page, IBufferWriter<byte> output, Encryptor encryptor, FeedPageDecryptionOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(encryptor);
        CheckLength(page.Length);
        options ??= DefaultFeedOptions;
        JObject parsed = JObjectReader.ParseObject(page, MaxDepth + 2);
        var session = new JFeedPageSession(parsed, options, MaxDepth, Rules, encryptor);
        for (int i = 0; i < session.Count; i++)
        {
            if (session.TryPrepare(i) is not JEnvelope envelope)
            {
                continue;
            }

            DataEncryptionKeyLease lease;
            try
            {
                lease = KeyResolver.Lease(encryptor, envelope.KeyId, envelope.Algorithm);
            }
            catch (EncryptionException exception)
            {
                session.Fail(i, exception);
                continue;
            }

            using (lease)
            {
                session.Decrypt(i, envelope, lease.Key);
            }
        }

        JObjectReader.Write(parsed, output);
        return session.ToResult();
    }

    /// <inheritdoc/>
    protected override async ValueTask<DecryptionContext?> DecryptCoreAsync(
        ReadOnlyMemory<byte> document,
        IBufferWriter<byte> output,
        Encryptor encryptor,
        bool includeDecryptionContext,
        CancellationToken cancellationToken)
    {
        CheckLength(document.Length);
        JObject parsed = JObjectReader.ParseObject(document.Span, MaxDepth);
        JEnvelope? envelope = JEnvelope.Read(parsed);
        if (Rules is { } rules)
        {
            JPolicyCheck.Check(parsed, envelope, rules, encryptor, nameDocument: true);
        }

        if (envelope is null)
        {
            output.Write(document.Span);
            return null;
        }

        using DataEncryptionKeyLease lease = await KeyResolver.LeaseAsync(encryptor, envelope.KeyId, envelope.Algorithm, cancellationToken).ConfigureAwait(false);
        cancellationToken.ThrowIfCancellationRequested();
        return DecryptAndWrite(parsed, envelope, lease.Key, output, includeDecryptionContext);
    }

    /// <inheritdoc/>
    protected override async ValueTask<FeedPageDecryptionResult> DecryptFeedPageCoreAsync(
        ReadOnlyMemory<byte> page,
        IBufferWriter<byte> output,
        Encryptor encryptor,
        FeedPageDecryptionOptions options,
        CancellationToken cancellationToken)
    {
        CheckLength(page.Length);
        JObject parsed = JObjectReader.ParseObject(page.Span, MaxDepth + 2);
        var session = new JFeedPageSession(parsed, options, MaxDepth, Rules, encryptor);
        for (int i = 0; i < session.Count; i++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (session.TryPrepare(i) is not JEnvelope envelope)
            {
                continue;
            }

            DataEncryptionKeyLease lease;
            try
            {
                lease = await KeyResolver.LeaseAsync(encryptor, envelope.KeyId, envelope.Algorithm, cancellationToken).ConfigureAwait(false);
            }
            catch (EncryptionException exception)
            {
                session.Fail(i, exception);
                continue;
            }

            using (lease)
            {
                session.Decrypt(i, envelope, lease.Key);
            }
        }

        JObjectReader.Write(parsed, output);
        return session.ToResult();
    }

    private DecryptionContext? DecryptAndWrite(JObject parsed, JEnvelope envelope, DataEncryptionKey key, IBufferWriter<byte> output, bool includeDecryptionContext)
    {
        List<string> paths = JDocumentCrypto.Decrypt(parsed, envelope, key, MaxDepth, Rules);
        JObjectReader.Write(parsed, output);
        return includeDecryptionContext ? new DecryptionContext([new DecryptionInfo(paths, envelope.KeyId)]) : null;
    }

    private void Encrypt(ReadOnlySpan<byte> document, IBufferWriter<byte> output, DataEncryptionKey key, EncryptionPlan plan)
    {
        if (plan.PathCount == 0)
        {
            output.Write(document);
            return;
        }

        JObject parsed = JObjectReader.ParseObject(document, MaxDepth);
        JDocumentCrypto.Encrypt(parsed, key, plan);
        JObjectReader.Write(parsed, output, MaxDocumentLength);
    }
}

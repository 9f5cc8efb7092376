using System.Buffers;
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
        if (plan.PathCount == 0)
        {
            output.Write(document);
            return;
        }

        JObject parsed = JObjectReader.ParseObject(document, MaxDepth);
        using PinnedKey pinned = KeyResolver.Pin(key);
        JDocumentCrypto.Encrypt(parsed, key, plan);
        JObjectReader.Write(parsed, output, MaxDocumentLength);
    }

    /// <inheritdoc/>
    public override DecryptionContext? Decrypt(ReadOnlySpan<byte> document, IBufferWriter<byte> output, Encryptor encryptor, bool includeDecryptionContext = false)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(encryptor);
        CheckLength(document.Length);
        JObject parsed = JObjectReader.ParseObject(document, MaxDepth);
        JEnvelope? envelope = JEnvelope.Read(parsed);
        if (Policy is { } policy)
        {
            JPolicyCheck.Check(parsed, envelope, policy, nameDocument: true);
        }

        if (envelope is null)
        {
            output.Write(document);
            return null;
        }

        using PinnedKey pinned = KeyResolver.ResolvePinned(encryptor, envelope.KeyId, envelope.Algorithm);
        return DecryptAndWrite(parsed, envelope, pinned.Key, output, includeDecryptionContext);
    }

    /// <inheritdoc/>
    public override FeedPageDecryptionResult DecryptFeedPage(ReadOnlySpan<byte> page, IBufferWriter<byte> output, Encryptor encryptor, FeedPageDecryptionOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(encryptor);
        CheckLength(page.Length);
        options ??= DefaultFeedOptions;
        JObject parsed = JObjectReader.ParseObject(page, MaxDepth + 2);
        var session = new JFeedPageSession(parsed, options, MaxDepth, Policy);
        for (int i = 0; i < session.Count; i++)
        {
            if (session.TryPrepare(i) is not JEnvelope envelope)
            {
                continue;
            }

            PinnedKey pinned;
            try
            {
                pinned = KeyResolver.ResolvePinned(encryptor, envelope.KeyId, envelope.Algorithm);
            }
            catch (EncryptionException exception)
            {
                session.Fail(i, exception);
                continue;
            }

            using (pinned)
            {
                session.Decrypt(i, envelope, pinned.Key);
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
        if (Policy is { } policy)
        {
            JPolicyCheck.Check(parsed, envelope, policy, nameDocument: true);
        }

        if (envelope is null)
        {
            output.Write(document.Span);
            return null;
        }

        using PinnedKey pinned = await KeyResolver.ResolvePinnedAsync(encryptor, envelope.KeyId, envelope.Algorithm, cancellationToken).ConfigureAwait(false);
        cancellationToken.ThrowIfCancellationRequested();
        return DecryptAndWrite(parsed, envelope, pinned.Key, output, includeDecryptionContext);
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
        var session = new JFeedPageSession(parsed, options, MaxDepth, Policy);
        for (int i = 0; i < session.Count; i++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (session.TryPrepare(i) is not JEnvelope envelope)
            {
                continue;
            }

            PinnedKey pinned;
            try
            {
                pinned = await KeyResolver.ResolvePinnedAsync(encryptor, envelope.KeyId, envelope.Algorithm, cancellationToken).ConfigureAwait(false);
            }
            catch (EncryptionException exception)
            {
                session.Fail(i, exception);
                continue;
            }

            using (pinned)
            {
                session.Decrypt(i, envelope, pinned.Key);
            }
        }

        JObjectReader.Write(parsed, output);
        return session.ToResult();
    }

    private DecryptionContext? DecryptAndWrite(JObject parsed, JEnvelope envelope, DataEncryptionKey key, IBufferWriter<byte> output, bool includeDecryptionContext)
    {
        List<string> paths = JDocumentCrypto.Decrypt(parsed, envelope, key, MaxDepth);
        JObjectReader.Write(parsed, output);
        return includeDecryptionContext ? new DecryptionContext([new DecryptionInfo(paths, envelope.KeyId)]) : null;
    }
}

using System.Text.Json;
using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Processing;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// The state of decrypting one feed page document by document into a pooled buffer: the position copied up to,
/// the failures and contexts collected. A document that fails is rolled back (its partial output zeroed) and,
/// with per-item reporting, copied through unchanged.
/// </summary>
/// <remarks>A mutable struct kept in one local (also inside async methods); never copy it.</remarks>
internal struct FeedPageSession
{
    private readonly FeedItemFailureMode _failureMode;
    private readonly bool _includeContexts;
    private readonly PolicyRuleSet? _rules;
    private readonly Encryptor _encryptor;
    private List<FeedItemDecryptionFailure>? _failures;
    private DecryptionContext?[]? _contexts;
    private int _decrypted;
    private int _cursor;

    public FeedPageSession(FeedPageDecryptionOptions options, PolicyRuleSet? rules, Encryptor encryptor)
    {
        _rules = rules;
        _encryptor = encryptor;
        _failureMode = options.FailureMode;
        _includeContexts = options.IncludeDecryptionContexts;
    }

    /// <summary>Reads a document's metadata and checks it (and its plaintext) against the container's policy, if any.</summary>
    /// <returns><see langword="true"/> when the document is encrypted and ready; <see langword="false"/> when it is not encrypted or failed (reported).</returns>
    /// <exception cref="EncryptionException">The document failed and the page fails with it.</exception>
    public bool TryPrepare(ReadOnlySpan<byte> input, DecryptionScan scan, int documentIndex)
    {
        try
        {
            bool encrypted = EnvelopeReader.Prepare(input, scan, ref scan.Documents[documentIndex]);
            if (_rules is not null)
            {
                PolicyScan.Check(input, scan, scan.Documents[documentIndex], encrypted, _rules, _encryptor, nameDocument: false);
            }

            return encrypted;
        }
        catch (EncryptionException exception)
        {
            Fail(input, scan, documentIndex, exception);
            return false;
        }
    }

    /// <summary>Records (or throws, naming the document) a failure of one document.</summary>
    /// <exception cref="EncryptionException">The page fails with it.</exception>
    public void Fail(ReadOnlySpan<byte> input, DecryptionScan scan, int documentIndex, EncryptionException exception)
    {
        ref readonly DocumentRecord document = ref scan.Documents[documentIndex];
        string? id = ReadId(input, scan, document);
        if (_failureMode == FeedItemFailureMode.FailPage)
        {
            throw JsonErrors.CreateFeedItem(exception, id, document.Index);
        }

        (_failures ??= []).Add(new FeedItemDecryptionFailure(document.Index, id, exception));
    }

    /// <summary>Copies what precedes the document and writes the document decrypted.</summary>
    /// <exception cref="EncryptionException">The document failed and the page fails with it.</exception>
    public void WriteDocument(ReadOnlySpan<byte> input, DecryptionScan scan, int documentIndex, DataEncryptionKey key, PooledBufferWriter buffer, int maxDepth)
    {
        ref readonly DocumentRecord document = ref scan.Documents[documentIndex];
        int mark = buffer.WrittenCount;
        try
        {
            buffer.Write(input[_cursor..document.Start]);
            DocumentDecryptor.Write(input, scan, document, key, buffer, maxDepth, _rules);
        }
        catch (EncryptionException exception)
        {
            // Zero whatever plaintext the failed document left; its original bytes go out with the next gap.
            buffer.Truncate(mark);
            Fail(input, scan, documentIndex, exception);
            return;
        }

        _cursor = document.End;
        _decrypted++;
        if (_includeContexts)
        {
            _contexts ??= new DecryptionContext?[scan.ArrayLength];
            _contexts[document.Index] = DecryptionContexts.Build(scan, document);
        }
    }

    /// <summary>Copies the rest of the page.</summary>
    public readonly void Finish(ReadOnlySpan<byte> input, PooledBufferWriter buffer) => buffer.Write(input[_cursor..]);

    public readonly FeedPageDecryptionResult ToResult(DecryptionScan scan)
    {
        IReadOnlyList<DecryptionContext?>? contexts = null;
        if (_includeContexts)
        {
            contexts = _contexts ?? new DecryptionContext?[scan.ArrayLength];
        }

        return new FeedPageDecryptionResult(scan.ArrayLength, _decrypted, _failures, contexts);
    }

    /// <summary>The document's id when it is a string (allocates: for error messages only).</summary>
    internal static string? ReadId(ReadOnlySpan<byte> input, DecryptionScan scan, in DocumentRecord document)
    {
        if (document.IdProperty < 0)
        {
            return null;
        }

        ref readonly PropertyRecord property = ref scan.Properties[document.IdProperty];
        if (property.ValueType != JsonTokenType.String)
        {
            return null;
        }

        ReadOnlySpan<byte> token = input[property.ValueStart..property.ValueEnd];
        byte[] buffer = new byte[token.Length];
        int length = JsonStringUnescaper.Unescape(token, buffer);
        return System.Text.Encoding.UTF8.GetString(buffer, 0, length);
    }
}

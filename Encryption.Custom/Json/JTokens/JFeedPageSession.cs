using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Processing;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Json.JTokens;

/// <summary>Decrypts the documents of a parsed feed page one by one, collecting failures and contexts.</summary>
internal sealed class JFeedPageSession
{
    private readonly JArray? _documents;
    private readonly FeedPageDecryptionOptions _options;
    private readonly int _maxDepth;
    private readonly PolicyRuleSet? _rules;
    private readonly Encryptor _encryptor;
    private List<FeedItemDecryptionFailure>? _failures;
    private DecryptionContext?[]? _contexts;
    private int _decrypted;

    public JFeedPageSession(JObject page, FeedPageDecryptionOptions options, int maxDepth, PolicyRuleSet? rules, Encryptor encryptor)
    {
        _rules = rules;
        _encryptor = encryptor;
        _documents = page["Documents"] as JArray;
        _options = options;
        _maxDepth = maxDepth;
    }

    public int Count => _documents?.Count ?? 0;

    /// <summary>Reads (and checks against the container's policy, if any) the metadata of element <paramref name="index"/>; null when it is not an encrypted object or failed (reported).</summary>
    public JEnvelope? TryPrepare(int index)
    {
        if (_documents![index] is not JObject document)
        {
            return null;
        }

        try
        {
            JEnvelope? envelope = JEnvelope.Read(document);
            if (_rules is not null)
            {
                JPolicyCheck.Check(document, envelope, _rules, _encryptor, nameDocument: false);
            }

            return envelope;
        }
        catch (EncryptionException exception)
        {
            Fail(index, exception);
            return null;
        }
    }

    public void Decrypt(int index, JEnvelope envelope, DataEncryptionKey key)
    {
        var document = (JObject)_documents![index];
        List<string> paths;
        try
        {
            paths = JDocumentCrypto.Decrypt(document, envelope, key, _maxDepth, _rules);
        }
        catch (EncryptionException exception)
        {
            Fail(index, exception);
            return;
        }

        _decrypted++;
        if (_options.IncludeDecryptionContexts)
        {
            _contexts ??= new DecryptionContext?[Count];
            _contexts[index] = new DecryptionContext([new DecryptionInfo(paths, envelope.KeyId)]);
        }
    }

    public void Fail(int index, EncryptionException exception)
    {
        string? id = (_documents![index] as JObject)?["id"] is JValue { Type: JTokenType.String } idValue ? (string?)idValue : null;
        if (_options.FailureMode == FeedItemFailureMode.FailPage)
        {
            throw JsonErrors.CreateFeedItem(exception, id, index);
        }

        (_failures ??= []).Add(new FeedItemDecryptionFailure(index, id, exception));
    }

    public FeedPageDecryptionResult ToResult()
    {
        IReadOnlyList<DecryptionContext?>? contexts = _options.IncludeDecryptionContexts ? _contexts ?? new DecryptionContext?[Count] : null;
        return new FeedPageDecryptionResult(Count, _decrypted, _failures, contexts);
    }
}

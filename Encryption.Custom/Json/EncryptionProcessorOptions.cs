namespace Encryption.Custom;

/// <summary>Limits a processor enforces on every document and feed page, before any work.</summary>
public sealed class EncryptionProcessorOptions
{
    /// <summary>The default <see cref="MaxDocumentLength"/>: 16 MiB.</summary>
    public const int DefaultMaxDocumentLength = 16 * 1024 * 1024;

    /// <summary>The default <see cref="MaxDepth"/>: 64, as System.Text.Json and Newtonsoft.Json.</summary>
    public const int DefaultMaxDepth = 64;

    /// <summary>The largest <see cref="MaxDepth"/> accepted.</summary>
    public const int MaxAllowedDepth = 1000;

    private int _maxDocumentLength = DefaultMaxDocumentLength;
    private int _maxDepth = DefaultMaxDepth;

    /// <summary>
    /// The largest input, in UTF-8 bytes, of one document or one feed page. Default
    /// <see cref="DefaultMaxDocumentLength"/> (16 MiB): well above Cosmos DB's 2 MB item and ~4 MB response page
    /// limits even after encryption's growth, while bounding the memory a hostile or broken stream can make the
    /// processor buffer (the whole input is held in one pooled buffer).
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not positive.</exception>
    public int MaxDocumentLength
    {
        get => _maxDocumentLength;
        set
        {
            ArgumentOutOfRangeException.ThrowIfNegativeOrZero(value);
            _maxDocumentLength = value;
        }
    }

    /// <summary>
    /// The deepest nesting of objects and arrays in a document, the root object counting as 1 (inside a feed
    /// page, counted from each document's root). Default <see cref="DefaultMaxDepth"/>. Deeper documents are
    /// rejected with <see cref="EncryptionErrorKind.LimitExceeded"/>.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not between 1 and <see cref="MaxAllowedDepth"/>.</exception>
    public int MaxDepth
    {
        get => _maxDepth;
        set
        {
            ArgumentOutOfRangeException.ThrowIfNegativeOrZero(value);
            ArgumentOutOfRangeException.ThrowIfGreaterThan(value, MaxAllowedDepth);
            _maxDepth = value;
        }
    }
}

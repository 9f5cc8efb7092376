using Encryption.Custom.Json.Tokens;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// What one cell must prove besides its tag before its plaintext is written: that it is bound to this document at its
/// path (a binding), and that the query tokens stored beside it are its own (a token rule and the stored tokens).
/// The default value checks neither. A ref struct because the stored tokens are a span of the document.
/// </summary>
internal readonly ref struct CellCheck
{
    /// <summary>The document's binding when the cell must be a bound cell for its path; the default value for an unbound cell.</summary>
    public readonly CellBinding Binding;

    /// <summary>The path's query-token declaration when a strict reader verifies the value's tokens, else <see langword="null"/>.</summary>
    public readonly QueryTokenRule? TokenRule;

    /// <summary>The document's token array for the path (empty when it has none).</summary>
    public readonly ReadOnlySpan<byte> StoredTokens;

    public CellCheck(CellBinding binding, QueryTokenRule? tokenRule = null, ReadOnlySpan<byte> storedTokens = default)
    {
        Binding = binding;
        TokenRule = tokenRule;
        StoredTokens = storedTokens;
    }
}

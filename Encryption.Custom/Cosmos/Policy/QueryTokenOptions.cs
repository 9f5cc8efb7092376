using Encryption.Custom.Json.Tokens;

namespace Encryption.Custom;

/// <summary>
/// Queries beyond equality on one encrypted path, served by query tokens stored beside the ciphertext (in the
/// document's reserved <c>_q</c> member): <see cref="RangeQueryOptions"/> (its subtypes for integers, decimals and
/// date-times) or <see cref="PrefixQueryOptions"/>. Set on <see cref="EncryptionPolicyIncludedPath.Queries"/>.
/// Tokens reveal more than randomized ciphertext: docs/queries.md, "Range and prefix queries", says what.
/// </summary>
public abstract class QueryTokenOptions
{
    private protected QueryTokenOptions()
    {
    }

    /// <summary>
    /// Bytes of each token, before base64url: 8 to 16. Default 12 (16 characters; a chance of about 2^-96 that two
    /// different inputs share a token, and the client's re-check removes such a row anyway).
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 8 to 16.</exception>
    public int TokenLength
    {
        get;
        init
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, QueryTokenRule.MinTokenLength);
            ArgumentOutOfRangeException.ThrowIfGreaterThan(value, QueryTokenRule.MaxTokenLength);
            field = value;
        }
    } = 12;

    /// <summary>Compiles the declaration for <paramref name="path"/>; throws <see cref="ArgumentException"/> naming why it cannot work.</summary>
    internal abstract QueryTokenRule Compile(string path);
}

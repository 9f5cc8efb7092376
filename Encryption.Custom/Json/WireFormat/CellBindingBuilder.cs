// Builds a CellBinding from what a processor reads in a document (wire-format.md "Bound cells"): the header fields
// from the policy and container, then each partition-key value as the raw JSON token found at its path (or "missing").
// JSON strings are unescaped before hashing, numbers are hashed as the double the service compares, and a value no
// partition key can hold (object, array, a number beyond double range) is refused rather than approximated.
using System.Buffers;
using System.Text.Json;
using Encryption.Custom.Crypto.Binding;
using Encryption.Custom.Json.Text;

namespace Encryption.Custom.Json.WireFormat;

/// <summary>Accumulates one document's binding inputs; use once, then <see cref="Build"/>.</summary>
internal ref struct CellBindingBuilder
{
    /// <summary>The format number of the extended format, whose documents carry bound cells.</summary>
    public const uint ExtendedFormat = 101;

    private const int StackLimit = 256;

    private BindingDigestBuilder _digest;

    /// <summary>Starts a binding; see <see cref="BindingDigestBuilder.Create"/> for each field.</summary>
    /// <param name="scratch">At least <see cref="BindingDigestBuilder.RecommendedScratchSize"/> bytes is typical; grows into a pooled array.</param>
    /// <param name="algorithm">The document's <c>_ea</c>.</param>
    /// <param name="dataEncryptionKeyId">The document's <c>_en</c>.</param>
    /// <param name="scope">"&lt;database id&gt;/&lt;container id&gt;".</param>
    /// <param name="id">The document's id, UTF-8, unescaped.</param>
    /// <param name="partitionKeyPaths">How many partition-key paths the container defines (0 to 3).</param>
    /// <param name="format">The document's <c>_ef</c>.</param>
    public static CellBindingBuilder Create(
        Span<byte> scratch,
        string algorithm,
        string dataEncryptionKeyId,
        string scope,
        scoped ReadOnlySpan<byte> id,
        int partitionKeyPaths,
        uint format = ExtendedFormat) =>
        new() { _digest = BindingDigestBuilder.Create(scratch, format, algorithm, dataEncryptionKeyId, scope, id, partitionKeyPaths) };

    /// <summary>The document has no value at the next partition-key path.</summary>
    public void AddMissing() => _digest.AddUndefined();

    /// <summary>Adds the next partition-key value from its raw JSON token (string with quotes, number, true, false or null).</summary>
    /// <exception cref="EncryptionException">
    /// <see cref="EncryptionErrorKind.MalformedDocument"/>: the token is not one JSON scalar, or is an object, an array,
    /// or a number outside the double range.
    /// </exception>
    public void AddJsonValue(scoped ReadOnlySpan<byte> rawValue)
    {
        var reader = new Utf8JsonReader(rawValue, new JsonReaderOptions { CommentHandling = JsonCommentHandling.Disallow });
        byte[]? rented = null;
        try
        {
            if (!reader.Read())
            {
                throw NotAPartitionKeyValue();
            }

            switch (reader.TokenType)
            {
                case JsonTokenType.Null:
                    _digest.AddNull();
                    break;
                case JsonTokenType.True:
                case JsonTokenType.False:
                    _digest.AddBoolean(reader.TokenType == JsonTokenType.True);
                    break;
                case JsonTokenType.Number:
                    if (!reader.TryGetDouble(out double number) || !double.IsFinite(number))
                    {
                        throw NotAPartitionKeyValue();
                    }

                    _digest.AddNumber(number);
                    break;
                case JsonTokenType.String:
                    // The input is one span, so the token is too; its unescaped form is never longer. A lone
                    // surrogate escape is MalformedDocument from the unescaper.
                    int maxLength = reader.ValueSpan.Length;
                    Span<byte> text = maxLength <= StackLimit ? stackalloc byte[StackLimit] : (rented = ArrayPool<byte>.Shared.Rent(maxLength));
                    _digest.AddString(text[..JsonStringUnescaper.CopyString(ref reader, text)]);
                    break;
                default:
                    throw NotAPartitionKeyValue();
            }

            if (reader.Read())
            {
                throw NotAPartitionKeyValue();
            }
        }
        catch (Exception exception) when (exception is JsonException or ArgumentException)
        {
            // Not JSON, or a string longer than LP16 allows: no partition key the service stores.
            throw NotAPartitionKeyValue();
        }
        finally
        {
            if (rented is not null)
            {
                ArrayPool<byte>.Shared.Return(rented);
            }
        }
    }

    /// <summary>Computes D; the builder cannot be used afterwards.</summary>
    public CellBinding Build()
    {
        Span<byte> digest = stackalloc byte[BindingDigestBuilder.DigestSize];
        _digest.Finish(digest);
        return new CellBinding(digest);
    }

    /// <summary>Releases a pooled buffer when the build is abandoned (Build does this too).</summary>
    public void Dispose() => _digest.Dispose();

    private static EncryptionException NotAPartitionKeyValue() =>
        new(
            EncryptionErrorKind.MalformedDocument,
            "A partition-key value of the document is not a string, a finite number, true, false or null, so the document's values cannot be bound to it.");
}

using System.Text;
using Encryption.Custom.Cosmos.Responses;
using Encryption.Custom.Cosmos.Streams;
using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Keys.Cosmos;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Cosmos.Queries.Tokens;

/// <summary>
/// The client's re-check of a token query's decrypted pages (docs/queries.md "Range and prefix queries"): a token
/// match is a superset (a cover node or a prefix token matches values the condition excludes), so each row is kept
/// only when every range or prefix condition holds for its decrypted value. Rows are dropped from the page in
/// place; the service's continuation is untouched, so paging goes on where the service left it (a page may become
/// shorter, or empty, as a service page can).
/// </summary>
internal sealed class TokenRecheck(IReadOnlyList<TokenPredicate> predicates)
{
    /// <summary>The conditions a row must satisfy.</summary>
    public IReadOnlyList<TokenPredicate> Predicates => predicates;

    /// <summary>Filters the decrypted page of <paramref name="response"/> in place (its content is replaced).</summary>
    public async Task<ResponseMessage> FilterAsync(ResponseMessage response, CancellationToken cancellationToken)
    {
        if (!response.IsSuccessStatusCode || response.Content is null)
        {
            return response;
        }

        byte[] page = await CosmosStreams.ReadAllAsync(response.Content, cancellationToken).ConfigureAwait(false);
        try
        {
            JObject parsed = Parse(page);
            if (parsed["Documents"] is JArray documents)
            {
                for (int i = documents.Count - 1; i >= 0; i--)
                {
                    if (documents[i] is not JObject document || !predicates.All(p => p.Matches(document)))
                    {
                        documents.RemoveAt(i);
                    }
                }

                if (parsed["_count"] is JValue)
                {
                    parsed["_count"] = documents.Count;
                }
            }

            PooledBufferWriter buffer = PooledBufferWriterPool.Rent();
            buffer.Write(Encoding.UTF8.GetBytes(parsed.ToString(Formatting.None)));
            await response.Content.DisposeAsync().ConfigureAwait(false);
            if (response is DecryptedResponseMessage decrypted)
            {
                decrypted.Content = new PooledContentStream(buffer);
                return response;
            }

            // Every page is filtered, whatever response type carries it: none goes out unchecked.
            return new DecryptedResponseMessage(response, new PooledContentStream(buffer));
        }
        finally
        {
            // The page held plaintext.
            Array.Clear(page);
        }
    }

    private static JObject Parse(byte[] page)
    {
        using var reader = new JsonTextReader(new StreamReader(new MemoryStream(page), Encoding.UTF8)) { DateParseHandling = DateParseHandling.None, FloatParseHandling = FloatParseHandling.Double, MaxDepth = null };
        return JObject.Load(reader);
    }
}

using Encryption.Custom.Json.Streaming;

namespace Encryption.Custom.Json.Inspection;

/// <summary>
/// Where each document of a feed or query page (<c>{"Documents":[…],…}</c>) lies, so that each can be inspected, and
/// copied, on its own. Framing only: how a document is judged is the chosen processor's (<see cref="DocumentInspector"/>).
/// </summary>
internal static class FeedPageDocuments
{
    /// <summary>The extent of each document of <paramref name="page"/>, in order.</summary>
    /// <exception cref="EncryptionException">The page is malformed, or deeper than <paramref name="maxDepth"/>.</exception>
    public static Range[] Split(ReadOnlySpan<byte> page, int maxDepth)
    {
        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            DocumentScanner.ScanFeedPage(page, scan, maxDepth);
            var documents = new Range[scan.DocumentCount];
            for (int i = 0; i < documents.Length; i++)
            {
                documents[i] = scan.Documents[i].Start..scan.Documents[i].End;
            }

            return documents;
        }
        finally
        {
            DecryptionScan.Return(scan);
        }
    }
}

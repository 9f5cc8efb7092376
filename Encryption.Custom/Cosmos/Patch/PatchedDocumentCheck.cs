using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Streaming;

namespace Encryption.Custom.Cosmos.Patch;

/// <summary>
/// Checks the stored document a patch would apply to, before any key is loaded: under a policy, a value shaped like
/// ciphertext at a policy path that the metadata does not list refuses the patch (it would rewrite the metadata
/// without that value, or add one that lacks it).
/// </summary>
internal static class PatchedDocumentCheck
{
    /// <summary>Checks <paramref name="document"/> against the container's policy.</summary>
    /// <param name="document">The stored document as read.</param>
    /// <param name="rules">The container's compiled policy, or <see langword="null"/>.</param>
    /// <param name="maxDepth">The container's depth limit.</param>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.UnlistedCipherText"/>, or the document cannot be read.</exception>
    public static void CheckStored(ReadOnlySpan<byte> document, PolicyRuleSet? rules, int maxDepth)
    {
        if (rules is null || document.IsEmpty)
        {
            return;
        }

        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            DocumentScanner.ScanDocument(document, scan, maxDepth);
            ref DocumentRecord record = ref scan.Documents[0];
            EnvelopeReader.Prepare(document, scan, ref record);
            int index = PolicyScan.FindUnlisted(document, scan, record, rules, out _, out bool cells);
            if (index >= 0 && cells)
            {
                throw PatchErrors.UnlistedCipherText(rules[index].Text, record.KeyId ?? rules.DataEncryptionKeyId);
            }
        }
        finally
        {
            DecryptionScan.Return(scan);
        }
    }
}

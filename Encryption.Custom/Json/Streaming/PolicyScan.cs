using System.Text.Json;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// The stream processor's read check of a <see cref="ContainerEncryptionPolicy"/>, made from what the scan already
/// recorded (top-level names, value types, the <c>_ep</c> match of each property): no second pass, no allocation.
/// </summary>
internal static class PolicyScan
{
    /// <summary>Checks one scanned (and prepared, when <paramref name="encrypted"/>) document.</summary>
    /// <param name="input">The whole input.</param>
    /// <param name="scan">The scan.</param>
    /// <param name="document">The document's record.</param>
    /// <param name="encrypted">Whether the document carries metadata (it was prepared).</param>
    /// <param name="policy">The container's policy.</param>
    /// <param name="nameDocument">Whether the error names the document (not in feeds: the page wrapper does).</param>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.KeyNotAccepted"/> or <see cref="EncryptionErrorKind.PlaintextForbidden"/>.</exception>
    public static void Check(ReadOnlySpan<byte> input, DecryptionScan scan, in DocumentRecord document, bool encrypted, ContainerEncryptionPolicy policy, bool nameDocument)
    {
        if (encrypted)
        {
            PolicyReadCheck.CheckKey(policy, document.KeyId!);
        }

        if (!PolicyReadCheck.Wants(policy))
        {
            return;
        }

        int index = FindPlaintext(input, scan, document, policy.Plan);
        if (index >= 0)
        {
            PolicyReadCheck.OnPlaintext(policy, policy.Plan.GetPath(index), nameDocument ? FeedPageSession.ReadId(input, scan, document) : null);
        }
    }

    /// <summary>The first property (in document order) that <paramref name="plan"/> lists, that <c>_ep</c> does not, and whose value is not null; or -1.</summary>
    internal static int FindPlaintext(ReadOnlySpan<byte> input, DecryptionScan scan, in DocumentRecord document, EncryptionPlan plan)
    {
        PropertyRecord[] properties = scan.Properties;
        int end = document.FirstProperty + document.PropertyCount;
        for (int i = document.FirstProperty; i < end; i++)
        {
            ref readonly PropertyRecord property = ref properties[i];
            if (property.PathIndex >= 0 || property.ValueType == JsonTokenType.Null || i == document.EnvelopeProperty)
            {
                continue;
            }

            int index = plan.FindPath(scan.GetName(input, property));
            if (index >= 0)
            {
                return index;
            }
        }

        return -1;
    }
}

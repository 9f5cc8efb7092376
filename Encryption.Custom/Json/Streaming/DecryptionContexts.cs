using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>Builds the <see cref="DecryptionContext"/> of a prepared document (only when a caller asked for it).</summary>
internal static class DecryptionContexts
{
    public static DecryptionContext Build(DecryptionScan scan, in DocumentRecord document)
    {
        var paths = new List<string>(scan.PathCount);
        for (int i = 0; i < scan.PathCount; i++)
        {
            ref readonly PathRecord path = ref scan.Paths[i];

            // Format 3: the listed paths present in the document. Format 2: the decryptor replaced the list with
            // the properties the blob held, all marked present.
            if (path.PropertyIndex >= 0)
            {
                paths.Add(JsonErrors.ToPath(scan.GetPathName(path)));
            }
        }

        // Format 101: then the nested selectors of which a value was decrypted, in _ep order.
        string[] selectors = document.Selectors?.Texts ?? [];
        for (int i = 0; i < selectors.Length; i++)
        {
            if ((scan.DecryptedSelectors & (1UL << i)) != 0)
            {
                paths.Add(selectors[i]);
            }
        }

        return new DecryptionContext([new DecryptionInfo(paths, document.KeyId!)]);
    }
}

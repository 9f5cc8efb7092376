using System.Diagnostics;
using System.Text;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.Values;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// What a writer binds a document to when the plan encrypts its id or partition key (docs/wire-format.md "Encrypted
/// ids and partition keys"): a bound cell's digest covers the document's id and key as stored, so a writer, which
/// holds the plaintext document, computes them as it will store them (the deterministic cell, the id in its stored
/// alphabet) and a reader takes them from the stored document as they are. Both processors' writers call this.
/// </summary>
/// <param name="Key">The data encryption key, leased by the writer.</param>
/// <param name="Plan">The plan being written.</param>
/// <param name="MaxDepth">The document depth limit.</param>
internal readonly record struct StoredKeyTokens([property: DebuggerBrowsable(DebuggerBrowsableState.Never)] DataEncryptionKey Key, EncryptionPlan Plan, int MaxDepth)
{
    /// <summary>Whether the plan encrypts the id or any of <paramref name="target"/>'s partition-key paths.</summary>
    public static bool Apply(EncryptionPlan plan, BindingTarget target)
    {
        if (plan.EncryptsId)
        {
            return true;
        }

        for (int i = 0; i < target.PartitionKeyCount; i++)
        {
            if (IsEncrypted(plan, target.GetPartitionKeyPath(i)))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>The stored id (UTF-8) of the id whose JSON token (a string) is <paramref name="idToken"/>.</summary>
    public byte[] StoreId(ReadOnlySpan<byte> idToken)
    {
        if (!Plan.EncryptsId)
        {
            // The id as a reader unescapes it (BindingScan), without a parsed document.
            byte[] unescaped = new byte[idToken.Length];
            return unescaped[..JsonStringUnescaper.Unescape(idToken, unescaped)];
        }

        // In the id's stored alphabet (StoredValue applies it at /id).
        return Encoding.ASCII.GetBytes(Encrypt(IdCellText.Path, idToken));
    }

    /// <summary>The stored JSON token of the partition-key value <paramref name="token"/> at <paramref name="path"/> (unchanged when the path is not encrypted, or the value is null).</summary>
    public byte[] StoreKey(string path, ReadOnlySpan<byte> token)
    {
        if (!IsEncrypted(Plan, path) || token.SequenceEqual("null"u8))
        {
            return token.ToArray();
        }

        return Encoding.ASCII.GetBytes("\"" + Encrypt(path, token) + "\"");
    }

    // As a lookup of the same value encrypts it (Cosmos/Lookups), so the binding covers what the service stores.
    private string Encrypt(string path, ReadOnlySpan<byte> token) =>
        StoredValue.EncryptJson(Key, token, new ValueSite(path, Plan.GetDeterministicPrefix(Plan.IndexOf(path)), Plan.DataEncryptionKeyId), MaxDepth);

    private static bool IsEncrypted(EncryptionPlan plan, string path)
    {
        int index = plan.IndexOf(path);
        return index >= 0 && index < plan.TopLevelCount && plan.IsDeterministic(index);
    }
}

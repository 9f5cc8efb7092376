using Microsoft.Azure.Cosmos;

namespace Encryption.Custom;

/// <summary>
/// An item to write through an encryption container whose response should come back as a
/// <see cref="Custom.DecryptableItem"/> (decrypted on demand, with its <see cref="DecryptionContext"/>), as in
/// Microsoft's package: pass an <see cref="EncryptableItem{T}"/> or an <see cref="EncryptableItemStream"/> as the
/// item of <c>CreateItemAsync</c>, <c>ReplaceItemAsync</c> or <c>UpsertItemAsync</c>, then read
/// <see cref="DecryptableItem"/> (also the response's <c>Resource.DecryptableItem</c>).
/// </summary>
/// <remarks>
/// The item is encrypted as any other (by the request's <see cref="EncryptionItemRequestOptions"/>) and needs the
/// partition key argument. Only the library derives from this type. Not for batches (write the plain item there).
/// </remarks>
public abstract class EncryptableItem
{
    private DecryptableItem? _decryptableItem;

    private protected EncryptableItem()
    {
    }

    /// <summary>The stored document the last successful write returned, decrypted on demand.</summary>
    /// <exception cref="InvalidOperationException">The item has not been written through an encryption container yet.</exception>
    public DecryptableItem DecryptableItem => _decryptableItem
        ?? throw new InvalidOperationException("The item has not been written yet: DecryptableItem is set by a successful create, replace or upsert through an encryption container.");

    /// <summary>The item's JSON, as a stream the caller disposes (and that does not close anything of the user's).</summary>
    internal abstract Stream ToStream(CosmosSerializer serializer);

    /// <summary>Records the written document (the latest write wins when an item is written again).</summary>
    internal void SetDecryptableItem(DecryptableItem decryptableItem) => _decryptableItem = decryptableItem;
}

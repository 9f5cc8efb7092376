namespace Encryption.Custom;

/// <summary>
/// A document read through an encryption container and decrypted only when asked for: use it as the <c>T</c> of
/// typed point reads, queries and change feed iterators to handle each document's decryption on its own. In a
/// feed page, a document that cannot be decrypted fails only its own <see cref="GetItemAsync{T}"/>.
/// </summary>
/// <remarks>
/// Disposable as in Microsoft's package (<c>await using</c>, or disposing each item of a page), so code written
/// for it compiles and stays correct. The library's items hold only the stored (encrypted) document and nothing
/// pooled, so disposing them is optional and does nothing; <see cref="GetItemAsync{T}"/> keeps working after it.
/// </remarks>
public abstract class DecryptableItem : IAsyncDisposable
{
    /// <summary>For the library and for mocking.</summary>
    protected DecryptableItem()
    {
    }

    /// <summary>
    /// Decrypts the document (when it is encrypted) and deserializes it with the client's serializer. Each call
    /// decrypts again; nothing decrypted is kept by this object.
    /// </summary>
    /// <typeparam name="T">The type to deserialize into.</typeparam>
    /// <param name="cancellationToken">Cancels the key lookup.</param>
    /// <returns>The item and what was decrypted with which key (<see langword="null"/> when the document is not encrypted).</returns>
    /// <exception cref="EncryptionException">The document cannot be decrypted (tampered value, unavailable key, malformed metadata).</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public abstract Task<(T Item, DecryptionContext? DecryptionContext)> GetItemAsync<T>(CancellationToken cancellationToken = default);

    /// <summary>Releases what the item holds: nothing for the library's items (see the remarks).</summary>
    /// <returns>A completed task.</returns>
    public virtual ValueTask DisposeAsync()
    {
        GC.SuppressFinalize(this);
        return ValueTask.CompletedTask;
    }
}

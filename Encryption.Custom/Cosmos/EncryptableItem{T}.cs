using Microsoft.Azure.Cosmos;

namespace Encryption.Custom;

/// <summary>A typed item to write through an encryption container (see <see cref="EncryptableItem"/>).</summary>
/// <typeparam name="T">The item's type, serialized with the client's serializer.</typeparam>
public sealed class EncryptableItem<T> : EncryptableItem
{
    /// <summary>Wraps <paramref name="input"/>.</summary>
    /// <param name="input">The item to write.</param>
    /// <exception cref="ArgumentNullException"><paramref name="input"/> is null.</exception>
    public EncryptableItem(T input)
    {
        ArgumentNullException.ThrowIfNull(input);
        Item = input;
    }

    /// <summary>The item to write.</summary>
    public T Item { get; }

    internal override Stream ToStream(CosmosSerializer serializer) => serializer.ToStream(Item);
}

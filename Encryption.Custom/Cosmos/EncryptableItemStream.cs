using System.Diagnostics.CodeAnalysis;
using Encryption.Custom.Cosmos.Streams;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom;

/// <summary>A JSON stream to write through an encryption container (see <see cref="EncryptableItem"/>).</summary>
/// <remarks>The write reads the stream from its position and leaves it open; disposing this object disposes it.</remarks>
[SuppressMessage("Naming", "CA1711:Identifiers should not have incorrect suffix", Justification = "Microsoft's package's name: migrated code compiles unchanged.")]
public sealed class EncryptableItemStream : EncryptableItem, IDisposable
{
    /// <summary>Wraps <paramref name="input"/>.</summary>
    /// <param name="input">A UTF-8 JSON object.</param>
    /// <exception cref="ArgumentNullException"><paramref name="input"/> is null.</exception>
    public EncryptableItemStream(Stream input)
    {
        ArgumentNullException.ThrowIfNull(input);
        StreamPayload = input;
    }

    /// <summary>The JSON to write.</summary>
    public Stream StreamPayload { get; }

    /// <summary>Disposes <see cref="StreamPayload"/>.</summary>
    public void Dispose() => StreamPayload.Dispose();

    internal override Stream ToStream(CosmosSerializer serializer) => new NonClosingStream(StreamPayload);
}

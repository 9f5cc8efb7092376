using Encryption.Custom.Json.WireFormat;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Patch;

/// <summary>The stored document a patch is rewritten for: its metadata, and its bytes when they are known.</summary>
/// <param name="Envelope">The document's encryption metadata, or <see langword="null"/> when it is not encrypted.</param>
/// <param name="Document">
/// The document as read (or as an earlier operation of the batch writes it), or <see langword="null"/> when unknown
/// (a batch's earlier patch): format 101 needs it to write encrypted values, format 3 only the metadata.
/// </param>
internal readonly record struct PatchedDocument(EnvelopeMetadata? Envelope, ReadOnlyMemory<byte>? Document);

/// <summary>What <see cref="PatchRewriter"/> decided: the operations to send, or why a conditional replace is needed.</summary>
internal sealed class PatchRewrite
{
    private PatchRewrite(IReadOnlyList<PatchOperation>? operations, EnvelopeMetadata? envelope, string? replaceReason)
    {
        Operations = operations;
        Envelope = envelope;
        ReplaceReason = replaceReason;
    }

    /// <summary>The operations to send (<see langword="null"/> when a replace is needed).</summary>
    public IReadOnlyList<PatchOperation>? Operations { get; }

    /// <summary>The document's metadata once the operations are applied (for a later patch of it in the same batch).</summary>
    public EnvelopeMetadata? Envelope { get; }

    /// <summary>Why the patch must be applied as a conditional replace, or <see langword="null"/>.</summary>
    public string? ReplaceReason { get; }

    public static PatchRewrite Send(IReadOnlyList<PatchOperation> operations, EnvelopeMetadata? envelope) => new(operations, envelope, null);

    public static PatchRewrite Replace(string reason) => new(null, null, reason);
}

using Encryption.Custom.Cosmos.Patch;
using Encryption.Custom.Cosmos.Streams;
using Encryption.Custom.Json.WireFormat;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Batch;

/// <summary>One operation recorded by an encryption transactional batch, and what executing it prepared.</summary>
internal sealed class BatchOperation
{
    public BatchOperation(BatchOperationKind kind, string? id, TransactionalBatchItemRequestOptions? options)
    {
        Kind = kind;
        RequestedId = id;
        Options = options;
    }

    public BatchOperationKind Kind { get; }

    /// <summary>The id the caller gave (read, replace, delete, patch), as the application knows it.</summary>
    public string? RequestedId { get; }

    /// <summary>
    /// The id as stored, set when the batch executes: <see cref="RequestedId"/> through the container's lookup keys
    /// (encrypted when the policy encrypts ids), or read from the body (create, upsert).
    /// </summary>
    public string? Id { get; set; }

    public TransactionalBatchItemRequestOptions? Options { get; }

    /// <summary>A body the caller gave as a stream (read when the batch executes).</summary>
    public Stream? Stream { get; init; }

    /// <summary>Serializes a typed item with the client's serializer (when the batch executes).</summary>
    public Func<CosmosSerializer, Stream>? Serialize { get; init; }

    /// <summary>The patch operations.</summary>
    public IReadOnlyList<PatchOperation>? PatchOperations { get; init; }

    /// <summary>The body to send (encrypted when the options asked for it), once prepared.</summary>
    public EncryptedRequestBody? Body { get; set; }

    /// <summary>The encryption metadata of the body that is sent, for patches of the same document later in the batch.</summary>
    public EnvelopeMetadata? Envelope { get; set; }

    /// <summary>The patch operations classified against the paths the request writes, before anything is read or sent.</summary>
    public PatchPlan? PatchPlan { get; set; }

    /// <summary>The rewritten patch operations of the current attempt.</summary>
    public IReadOnlyList<PatchOperation>? SendPatchOperations { get; set; }

    /// <summary>The patch options of the current attempt (the caller's, copied, with the ETag condition).</summary>
    public TransactionalBatchPatchItemRequestOptions? SendPatchOptions { get; set; }

    /// <summary>Whether the patch was given an ETag condition by the container (not by the caller), in the current attempt.</summary>
    public bool HasContainerCondition { get; set; }

    public bool HasBody => Kind is BatchOperationKind.Create or BatchOperationKind.Replace or BatchOperationKind.Upsert;

    /// <summary>The encryption options the caller attached to a write, if any.</summary>
    public EncryptionOptions? RequestedEncryptionOptions => (Options as EncryptionTransactionalBatchItemRequestOptions)?.EncryptionOptions;

    /// <summary>What a write encrypts (the requested options or the container's policy), resolved before anything is sent.</summary>
    public EncryptionOptions? EncryptionOptions { get; set; }
}

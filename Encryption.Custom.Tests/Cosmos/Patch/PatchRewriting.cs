using Encryption.Custom.Cosmos.Patch;
using Encryption.Custom.Json.WireFormat;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Patch;

/// <summary>The one patch strategy as the container runs it, without a container: classified, then rewritten for the stored document.</summary>
internal static class PatchRewriting
{
    public static PatchPlan Plan(IReadOnlyList<PatchOperation> operations, EncryptionOptions? requested) =>
        PatchPlan.Create(operations, requested, requested is null ? null : PatchSelectors.For(requested.GetPlan()));

    public static async Task<PatchRewrite> RewriteAsync(IReadOnlyList<PatchOperation> operations, EncryptionOptions? requested, PatchCrypto crypto, EnvelopeMetadata? stored, byte[]? document = null) =>
        await PatchRewriter.RewriteAsync(Plan(operations, requested), new PatchedDocument(stored, document), crypto, null, TestContext.Current.CancellationToken);
}

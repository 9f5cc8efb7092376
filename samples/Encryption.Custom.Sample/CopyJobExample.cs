using Encryption.Custom;
using Microsoft.Azure.Cosmos;

namespace EncryptionSample;

/// <summary>
/// docs/migration.md, "Copying into a new container": the block there is <see cref="CopyAsync"/>'s body (a test checks
/// that it appears here line for line). The copy reads <c>orders</c> with its own policy and writes every document
/// into <c>orders-v2</c> under the new one; the status then compares the two.
/// </summary>
internal static class CopyJobExample
{
    /// <summary>docs/migration.md's block: the copy job and the copy status.</summary>
    public static async Task<(EncryptionMigrationResult Result, EncryptionCopyStatus Status)> CopyAsync(
        Container ordersRaw, Container ordersV2Raw, Container leases, Encryptor encryptor, IProgress<EncryptionMigrationProgress> progress, CancellationToken ct)
    {
        var source = new ContainerEncryptionPolicy("dek-1", ["/ssn"]) { PlaintextPolicy = PlaintextPolicy.WriteEncryptedReadBoth };
        var target = new ContainerEncryptionPolicy("dek-2", ["/ssn", "/salary"]);
        await using var job = new EncryptionMigrationJob(ordersRaw, source, ordersV2Raw, target, encryptor, leases,
            new EncryptionMigrationOptions { ProcessorName = "copy-orders-v2", RequestUnitsPerSecond = 400 });
        EncryptionMigrationResult result = await job.RunAsync(progress, ct);
        EncryptionCopyStatus status = await EncryptionMigrationJob.GetCopyStatusAsync(ordersRaw, source, ordersV2Raw, target, encryptor, ct);
        return (result, status);
    }
}

using System.Security.Cryptography;
using Encryption.Custom;
using Microsoft.Azure.Cosmos;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Newtonsoft.Json.Linq;

namespace EncryptionSample;

/// <summary>
/// docs/migration.md: rotating a container's documents from one DEK to another with <see cref="EncryptionMigrationJob"/>
/// (the block there is <see cref="RotateAsync"/>'s body, and a test checks that it appears here line for line).
/// eng/run.sh runs <see cref="RunAsync"/>: documents written under 'dek-2023', rotated to 'dek-2024', counted.
/// </summary>
internal static class MigrationJobExample
{
    private static readonly string[] s_paths = ["/ssn", "/salary"];

    /// <summary>Writes a few documents with 'dek-2023', rotates them to 'dek-2024' and checks the status query.</summary>
    public static async Task<bool> RunAsync(Database database)
    {
        Output.Step("docs/migration.md: rotate every document from 'dek-2023' to 'dek-2024' with the migration job");
        using var keyWrapProvider = new LocalKeyWrapProvider();
        keyWrapProvider.AddAesKey("kek", RandomNumberGenerator.GetBytes(32));
        using var keys = new CosmosDataEncryptionKeyProvider(keyWrapProvider);
        await keys.InitializeAsync(database, "keys");
        foreach (string dek in new[] { "dek-2023", "dek-2024" })
        {
            await keys.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync(
                dek, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, LocalKeyWrapProvider.CreateMetadata("kek", KeyWrapAlgorithm.AesKeyWrap));
        }

        var encryptor = new CosmosEncryptor(keys);
        Container raw = (await database.CreateContainerAsync("orders", "/tenant")).Container;
        await database.CreateContainerAsync("migration-leases", "/id");
        Container old = raw.WithEncryptor(encryptor, new EncryptionContainerOptions { Policy = new ContainerEncryptionPolicy("dek-2023", s_paths) });
        for (int i = 0; i < 20; i++)
        {
            var order = new JObject { ["id"] = $"o{i}", ["tenant"] = $"t{i % 3}", ["ssn"] = $"078-05-{1120 + i}", ["salary"] = 1000 * i };
            await old.CreateItemAsync(order, new PartitionKey($"t{i % 3}"));
        }

        (EncryptionMigrationResult result, EncryptionMigrationStatus status) = await RotateAsync(
            database, encryptor, NullLoggerFactory.Instance, p => Output.Line(Describe(p)), CancellationToken.None);
        Output.Line($"dek-2023: {status.DocumentsByDataEncryptionKeyId.GetValueOrDefault("dek-2023")} documents, dek-2024: {status.DocumentsByDataEncryptionKeyId.GetValueOrDefault("dek-2024")}");
        return Output.Check(result.Completed && result.Failures.Count == 0, "the job completed without failures")
            & Output.Check(result.Progress.DocumentsSkipped == result.Progress.DocumentsRewritten, "every skipped document is one of the job's own rewrites coming back through the change feed")
            & Output.Check(status.DocumentsByDataEncryptionKeyId.GetValueOrDefault("dek-2023") == 0 && status.DocumentsInTargetState == 20, "the status query counts every document on 'dek-2024' and none on 'dek-2023'");
    }

    // The job sees every write through the change feed, its own rewrites too: each of the 20 documents comes back
    // once, already on 'dek-2024', and is skipped. A bare "20 skipped" read as 20 documents left behind.
    private static string Describe(EncryptionMigrationProgress p) =>
        $"{p.DocumentsRewritten} rewritten, {p.DocumentsSkipped} skipped (already in the target state: here the job's own rewrites coming back through the change feed, not documents left behind), lag {p.EstimatedLag}";

    /// <summary>docs/migration.md's block: the job and the status query.</summary>
    public static async Task<(EncryptionMigrationResult Result, EncryptionMigrationStatus Status)> RotateAsync(
        Database database, Encryptor encryptor, ILoggerFactory loggerFactory, Action<EncryptionMigrationProgress> show, CancellationToken ct)
    {
        Container container = database.GetContainer("orders");          // the raw container, not WithEncryptor
        Container leases = database.GetContainer("migration-leases");   // partition key /id
        var target = new ContainerEncryptionPolicy("dek-2024", ["/ssn", "/salary"]);
        await using var job = new EncryptionMigrationJob(container, encryptor, target, leases,
            new EncryptionMigrationOptions { AcceptedSourceDataEncryptionKeyIds = { "dek-2023" }, RequestUnitsPerSecond = 400, LoggerFactory = loggerFactory });
        EncryptionMigrationResult result = await job.RunAsync(new Progress<EncryptionMigrationProgress>(show), ct);
        EncryptionMigrationStatus status = await EncryptionMigrationJob.GetStatusAsync(container, encryptor, target, ct);
        return (result, status);
    }
}

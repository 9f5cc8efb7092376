using System.Runtime.InteropServices;
using System.Text;
using Encryption.Custom.Migration;
using Encryption.Custom.Tool.CommandLine;
using Encryption.Custom.Tool.Endpoints;
using Encryption.Custom.Tool.Errors;
using Encryption.Custom.Tool.Migration;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tool.Commands;

/// <summary>
/// <c>migrate</c>: one instance of the library's <see cref="EncryptionMigrationJob"/>, run until the container is in
/// the target state. Ctrl+C (SIGINT) and SIGTERM stop it cleanly, as a cancellation of the job: finished pages are
/// checkpointed in the lease container, and the same command resumes from there.
/// </summary>
internal static class MigrateCommand
{
    // The tool reports often enough for a person watching; each report asks the estimator once per lease.
    private static readonly TimeSpan s_progressInterval = TimeSpan.FromSeconds(2);

    /// <exception cref="ToolException">
    /// Bad paths (exit code 2), an unreadable key file (3), documents left as they were (4), stopped before the end (1).
    /// </exception>
    /// <exception cref="EncryptionException">A DEK cannot be read or unwrapped.</exception>
    /// <exception cref="CosmosException">The service refused a request.</exception>
    public static async Task RunAsync(ToolArguments arguments, ToolConsole console, CancellationToken cancellationToken)
    {
        MigrationArguments migration = arguments.Migration!;
        ContainerEncryptionPolicy? policy = MigrationTargets.PolicyOf(migration);

        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        using PosixSignalRegistration interrupt = PosixSignalRegistration.Create(PosixSignal.SIGINT, context => Stop(context, stop));
        using PosixSignalRegistration terminate = PosixSignalRegistration.Create(PosixSignal.SIGTERM, context => Stop(context, stop));

        // With --bulk only the migrated container goes through a bulk client: the lease container's reads and
        // checkpoints are one at a time, and bulk would hold each back for its batch dispatch (docs/migration.md).
        using CosmosClient client = AccountClient.Create(migration.Endpoint);
        using CosmosClient? bulkClient = migration.Bulk ? AccountClient.Create(migration.Endpoint, allowBulkExecution: true) : null;
        Database database = client.GetDatabase(migration.Database);
        Container container = (bulkClient ?? client).GetContainer(migration.Database, migration.Container);
        await ResourceCheck.EnsureExistsAsync(client, migration.Database, "--database", migration.Container, "--container", stop.Token).ConfigureAwait(false);
        await ResourceCheck.EnsureExistsAsync(
            client, migration.DekDatabase ?? migration.Database, migration.DekDatabase is null ? "--database" : "--dek-database", migration.DekContainer!, "--dek-container", stop.Token).ConfigureAwait(false);
        await using MigrationKeys keys = await MigrationKeys.OpenAsync(client, migration, stop.Token).ConfigureAwait(false);
        await using var output = new StreamWriter(console.Out, new UTF8Encoding(false), bufferSize: 4096, leaveOpen: true) { AutoFlush = true, NewLine = "\n" };

        // A run surveys through the lease container, as the library's job does: each feed range by one of the processes
        // sharing the job, or the recorded survey read by a process that comes later (docs/migration.md, "Scans shared
        // by the instances"); so the lease container is made first, and a refused run leaves it holding the survey's
        // records and no lease. A dry run writes nothing: it surveys the whole container alone.
        await using EncryptionMigrationJob job = await CreateJobAsync(client, bulkClient, container, keys.Encryptor, policy, migration, stop.Token).ConfigureAwait(false);
        if (!migration.DryRun)
        {
            await TransientFailures.RetryAsync(
                token => database.CreateContainerIfNotExistsAsync(migration.LeaseContainer!, "/id", cancellationToken: token),
                TimeProvider.System,
                stop.Token).ConfigureAwait(false);
        }

        ContainerSurvey survey = await MigrationPreflight.RunAsync(job, (policy, migration), shared: !migration.DryRun, output, stop.Token).ConfigureAwait(false);
        if (migration.DryRun)
        {
            return;
        }

        EncryptionMigrationResult result = console.IsTerminal
            ? await TerminalProgress.RunAsync(output, survey.TotalDocuments, progress => job.RunAsync(progress, stop.Token)).ConfigureAwait(false)
            : await job.RunAsync(new PlainProgress(output, survey.TotalDocuments), stop.Token).ConfigureAwait(false);

        await FailureLines.WriteAsync(result.Failures, output, migration.FailuresFile, console, stop.Token).ConfigureAwait(false);
        await output.WriteLineAsync(MigrationLines.Progress(result.Completed ? "done" : "stopped", result.Progress)).ConfigureAwait(false);
        if (result.Verification is { } verification)
        {
            await output.WriteLineAsync(MigrationLines.Verification(verification)).ConfigureAwait(false);
        }

        if (result.CopyVerification is { } copy)
        {
            await output.WriteLineAsync(MigrationLines.Copy(copy)).ConfigureAwait(false);
        }

        if (!result.Completed)
        {
            throw ToolException.Cancelled("the migration was stopped; finished pages are checkpointed: run the same command again to resume.");
        }

        if (result.Failures.Count > 0)
        {
            throw ToolException.DocumentsFailed($"{result.Failures.Count} document(s) could not be migrated and were left as they were (listed on standard output{(migration.FailuresFile is null ? string.Empty : " and in the failures file")}).");
        }
    }

    // In place, or (--target-container) a copy whose source is read with the key each document names: the job
    // accepts only the target DEK and the --accept-dek ones, as in place.
    private static async Task<EncryptionMigrationJob> CreateJobAsync(
        CosmosClient client, CosmosClient? bulkClient, Container container, Encryptor encryptor, ContainerEncryptionPolicy? policy, MigrationArguments migration, CancellationToken cancellationToken)
    {
        Container leases = client.GetContainer(migration.Database, migration.LeaseContainer!);
        if (migration.TargetContainer is not { } targetName)
        {
            return new EncryptionMigrationJob(container, encryptor, policy, leases, Options(migration));
        }

        await ResourceCheck.EnsureExistsAsync(client, migration.Database, "--database", targetName, "--target-container", cancellationToken).ConfigureAwait(false);
        Container target = (bulkClient ?? client).GetContainer(migration.Database, targetName);
        return new EncryptionMigrationJob(container, sourcePolicy: null, target, policy, encryptor, leases, Options(migration));
    }

    private static EncryptionMigrationOptions Options(MigrationArguments migration)
    {
        var options = new EncryptionMigrationOptions
        {
            RequestUnitsPerSecond = migration.RequestUnitsPerSecond,
            UseBulkExecution = migration.Bulk,
            JsonProcessor = migration.Processor,
            ProgressInterval = s_progressInterval,
        };

        // The flags that allow a destructive change are the job's own options: the job owns the rule.
        AddAll(options.AcceptedSourceDataEncryptionKeyIds, migration.AcceptedDekIds);
        AddAll(options.AllowedDecryptPaths, migration.DecryptPaths);
        AddAll(options.AllowedEncryptionTypeChangePaths, migration.ChangeTypePaths);
        if (migration.JobName is { } name)
        {
            options.ProcessorName = name;
        }

        if (migration.Parallelism is { } parallelism)
        {
            options.MaxDegreeOfParallelism = parallelism;
        }

        if (migration.BatchSize is { } batchSize)
        {
            options.MaxItemsPerBatch = batchSize;
        }

        if (migration.LeaseExpiration is { } leaseExpiration)
        {
            options.LeaseExpirationInterval = leaseExpiration;
        }

        return options;
    }

    private static void AddAll(ICollection<string> target, IEnumerable<string> values)
    {
        foreach (string value in values)
        {
            target.Add(value);
        }
    }

    // The first signal stops the job cleanly instead of ending the process; the process then ends by itself.
    private static void Stop(PosixSignalContext context, CancellationTokenSource stop)
    {
        context.Cancel = true;
        stop.Cancel();
    }
}

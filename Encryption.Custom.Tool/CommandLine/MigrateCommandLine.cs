using System.CommandLine;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary><c>migrate</c>: its options, their binding, and the rules for its target and its keys.</summary>
internal sealed class MigrateCommandLine : ToolCommand
{
    private const int MaxEchoedPathLength = 40;

    private readonly Option<Uri> _endpoint = ToolOptions.Endpoint();
    private readonly Option<string> _database = ToolOptions.Text("--database", "NAME", "Database of the container.", required: true);
    private readonly Option<string> _container = ToolOptions.Text("--container", "NAME", "The container whose documents are migrated or counted.", required: true);

    private readonly Option<string> _leaseContainer = ToolOptions.Text(
        "--lease-container",
        "NAME",
        "The change feed processor's lease container in the same database (partition key /id; created when missing). It holds "
        + "the job's checkpoints: a rerun with the same --job-name resumes from them.",
        required: true);

    private readonly Option<string> _targetContainer = ToolOptions.Text(
        "--target-container",
        "NAME",
        "Copy the documents into this existing container of the same database instead of rewriting them in place (needed when "
        + "the target changes how documents are addressed). The source is only read: each document is decrypted in memory with "
        + "the DEK it names (the target DEK or an --accept-dek one) and upserted into the target under the target policy. "
        + "Documents deleted from the source are not deleted from the target.");

    private readonly Option<string> _dekDatabase = ToolOptions.Text("--dek-database", "NAME", "Database of the DEK container. Default: --database.");

    private readonly Option<string> _dekContainer = ToolOptions.Text(
        "--dek-container", "NAME", "The DEK container holding the target DEK and the accepted source DEKs (only read).", required: true);

    private readonly Option<string> _kekFile = ToolOptions.Text(
        "--kek-file",
        "PATH",
        "Local key-encryption key that wrapped the DEKs: a JSON Web Key (RSA or oct) or an RSA PEM file, used under every key "
        + "name the DEK documents' metadata gives.");

    private readonly Option<string> _keyVault = ToolOptions.KeyVaultCredential();

    private readonly Option<string> _dekId = ToolOptions.Text(
        "--dek-id", "ID", "The target policy's data encryption key: documents end up encrypted with it (with --path).");

    private readonly Option<string[]> _paths = ToolOptions.Repeated(
        "--path", "/NAME", "A top-level property the target policy encrypts, as '/name'; repeat for more (with --dek-id).");

    private readonly Option<string[]> _deterministicPaths = ToolOptions.Repeated(
        "--deterministic-path",
        "/NAME",
        "A top-level property the target policy encrypts deterministically (equality queries; reveals which documents share a "
        + "value), as '/name'; repeat for more (with --dek-id).");

    private readonly Option<bool> _decrypt = ToolOptions.Flag(
        "--decrypt", "Target state: no encryption. Every document is decrypted (instead of --dek-id and --path).");

    private readonly Option<string[]> _acceptDek = ToolOptions.Repeated(
        "--accept-dek",
        "ID",
        "A source DEK documents may be encrypted with (besides the target DEK); repeat for more. A document under any other DEK "
        + "is reported and left as it was.");

    private readonly Option<string[]> _decryptPaths = ToolOptions.Repeated(
        "--decrypt-path",
        "/NAME",
        "Allows the run to decrypt this path in the documents that encrypt it (the target does not list it, or is --decrypt); "
        + "repeat for each. Without it such a run is refused before its first write.");

    private readonly Option<string[]> _changeTypePaths = ToolOptions.Repeated(
        "--change-type-path",
        "/NAME",
        "Allows the run to change this path between deterministic and randomized encryption in the documents that hold it the "
        + "other way; repeat for each. Without it such a run is refused before its first write.");

    private readonly Option<bool> _dryRun = ToolOptions.Flag(
        "--dry-run",
        "Read the container, prove the keys, print what the run would do to each DEK and path, and stop without writing "
        + "anything (the lease container is not created).");

    private readonly Option<double?> _budget = ToolOptions.Positive<double>(
        "--budget",
        "RU/S",
        "Throughput budget in request units per second, counted from the responses' request charge. Default: none (the "
        + "service's 429 answers still slow the job down).");

    private readonly Option<int?> _parallelism = ToolOptions.Positive<int>("--parallelism", "N", "Documents rewritten at once. Default: 8.");

    private readonly Option<int?> _batchSize = ToolOptions.Positive<int>(
        "--batch-size", "N", "Change feed page size, and so the work between two checkpoints. Default: 100.");

    private readonly Option<double?> _leaseExpiration = ToolOptions.Positive<double>(
        "--lease-expiration",
        "SECONDS",
        "How long a lease stays with an instance after its last renewal, from 1 to 86400: the leases of an instance that died "
        + "(killed, its machine lost) are taken over by the other instances once this has passed. Give every instance of the "
        + "job the same value. Default: 60.");

    private readonly Option<bool> _bulk = ToolOptions.Flag("--bulk", "Send a page's rewrites together through the SDK's bulk execution.");

    private readonly Option<string> _jobName = ToolOptions.Text(
        "--job-name",
        "NAME",
        "Names the job's leases (and checkpoints) in the lease container. Default: encryption-migration. Use a new name for a "
        + "new migration of the same container.");

    private readonly Option<JsonProcessor> _processor = ToolOptions.Processor();

    private readonly Option<string> _failuresFile = ToolOptions.Text(
        "--failures-file", "PATH", "Write every 'failed:' line to this file (standard output shows the first 20 and a count).");

    public MigrateCommandLine()
        : base(
            CommandKind.Migrate,
            "migrate",
            "Bring a container's documents to a target encryption state, in place.",
            "Runs the library's migration job (a change feed processor instance) until every document of the container is in the "
            + "target state: encrypted with --dek-id in the --path properties, or decrypted (--decrypt). Documents are decrypted "
            + "with the DEK they name (the target DEK or an --accept-dek one, unwrapped from the DEK container with --kek-file or "
            + "--key-vault-credential) and replaced on the condition of their ETag, so a concurrent write is never overwritten. "
            + "Ctrl+C stops cleanly; the same command resumes from the checkpoints. Before the first write every DEK is unwrapped "
            + "(a key that cannot be is exit code 3) and the container is read once and compared with the target: a run that "
            + "would decrypt a path or change its encryption type is refused (exit code 2) unless each such path is named with "
            + "--decrypt-path or --change-type-path; --dry-run prints the comparison and stops. Progress goes to standard output "
            + "(a bar on a terminal, lines otherwise); documents that cannot be migrated are listed (id, partition key, reason) "
            + "and left as they were.")
    {
        AddOptions(
            _endpoint, _database, _container, _leaseContainer, _targetContainer, _dekDatabase, _dekContainer, _kekFile, _keyVault, _dekId, _paths,
            _deterministicPaths, _decrypt, _acceptDek, _decryptPaths, _changeTypePaths, _dryRun, _budget, _parallelism, _batchSize,
            _leaseExpiration, _bulk, _jobName, _processor, _failuresFile);
    }

    public override ToolArguments Bind(ParseResult result)
    {
        string? dekId = result.ValueOf(_dekId);
        string[] deterministic = result.ValueOf(_deterministicPaths) ?? [];
        string[] paths = [.. result.ValueOf(_paths) ?? [], .. deterministic];
        StatusCommandLine.RequireTargetShape(dekId, paths, SeeHelp);
        string[] decryptPaths = result.ValueOf(_decryptPaths) ?? [];
        if (decryptPaths.FirstOrDefault(p => paths.Contains(p, StringComparer.Ordinal)) is { } kept)
        {
            throw ToolException.Usage($"--decrypt-path {EchoPath(kept)} names a path the target encrypts (--path); a path is either decrypted or kept {SeeHelp}.");
        }

        if (result.IsGiven(_decrypt) == (dekId is not null))
        {
            throw ToolException.Usage($"'migrate' needs a target: --dek-id ID with --path /NAME, or --decrypt {SeeHelp}.");
        }

        string? targetContainer = result.ValueOf(_targetContainer);
        if (targetContainer is not null && string.Equals(targetContainer, result.ValueOf(_container), StringComparison.Ordinal))
        {
            throw ToolException.Usage($"--target-container names the --container itself; leave it out to migrate in place {SeeHelp}.");
        }

        TimeSpan? leaseExpiration = LeaseExpiration(result.ValueOf(_leaseExpiration));
        string? kekFile = result.ValueOf(_kekFile);
        RequireOneKeyEncryptionKey(kekFile, result.IsGiven(_keyVault));
        return new ToolArguments
        {
            Action = ToolAction.Run,
            Command = this,
            Migration = new MigrationArguments
            {
                Endpoint = result.ValueOf(_endpoint)!,
                Database = result.ValueOf(_database)!,
                Container = result.ValueOf(_container)!,
                TargetDekId = dekId,
                TargetPaths = paths,
                DeterministicPaths = deterministic,
                DecryptPaths = decryptPaths,
                ChangeTypePaths = result.ValueOf(_changeTypePaths) ?? [],
                DryRun = result.IsGiven(_dryRun),
                TargetContainer = targetContainer,
                FailuresFile = result.ValueOf(_failuresFile),
                LeaseContainer = result.ValueOf(_leaseContainer),
                DekDatabase = result.ValueOf(_dekDatabase),
                DekContainer = result.ValueOf(_dekContainer),
                KekFile = kekFile,
                AcceptedDekIds = result.ValueOf(_acceptDek) ?? [],
                RequestUnitsPerSecond = result.ValueOf(_budget),
                Parallelism = result.ValueOf(_parallelism),
                BatchSize = result.ValueOf(_batchSize),
                LeaseExpiration = leaseExpiration,
                Bulk = result.IsGiven(_bulk),
                JobName = result.ValueOf(_jobName),
                Processor = result.GetValue(_processor),
            },
        };
    }

    // The job's own bounds (EncryptionMigrationOptions.LeaseExpirationInterval refuses the rest), checked here so that
    // a value out of range is a usage error before anything is read.
    private TimeSpan? LeaseExpiration(double? seconds)
    {
        if (seconds is not { } value)
        {
            return null;
        }

        TimeSpan min = EncryptionMigrationOptions.MinLeaseExpirationInterval;
        TimeSpan max = EncryptionMigrationOptions.MaxLeaseExpirationInterval;
        if (value < min.TotalSeconds || value > max.TotalSeconds)
        {
            throw ToolException.Usage(
                $"option --lease-expiration needs a number of seconds from {min.TotalSeconds:0} to {max.TotalSeconds:0} {SeeHelp}.");
        }

        return TimeSpan.FromSeconds(value);
    }

    // A path the operator typed is echoed like a name: plainly a path, or not at all.
    private static string EchoPath(string path) =>
        path.Length <= MaxEchoedPathLength && path.StartsWith('/') && path.Skip(1).All(c => char.IsAsciiLetterOrDigit(c) || c is '_' or '-') ? path : "(not printed)";
}

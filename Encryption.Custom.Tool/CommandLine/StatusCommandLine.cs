using System.CommandLine;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary><c>status</c>: its options and their binding.</summary>
internal sealed class StatusCommandLine : ToolCommand
{
    private readonly Option<Uri> _endpoint = ToolOptions.Endpoint();
    private readonly Option<string> _database = ToolOptions.Text("--database", "NAME", "Database of the container.", required: true);
    private readonly Option<string> _container = ToolOptions.Text("--container", "NAME", "The container whose documents are migrated or counted.", required: true);

    private readonly Option<string> _dekId = ToolOptions.Text(
        "--dek-id",
        "ID",
        "The target policy's data encryption key (with --path), to count documents outside the target state, with plaintext in "
        + "its paths or with other paths. Without it the target is 'no encryption'.");

    private readonly Option<string[]> _paths = ToolOptions.Repeated("--path", "/NAME", "A top-level property of the target policy, as '/name'; repeat for more (with --dek-id).");

    private readonly Option<string[]> _deterministicPaths = ToolOptions.Repeated(
        "--deterministic-path",
        "/NAME",
        "A top-level property the target policy encrypts deterministically, as '/name' (as migrate's); repeat for more (with --dek-id).");

    // The copy mode: the same target and key options as migrate --target-container, since it decrypts both ends.
    private readonly Option<string> _targetContainer = ToolOptions.Text(
        "--target-container",
        "NAME",
        "Where a copy (migrate --target-container) stands instead: every --container document is decrypted with the DEK it "
        + "names, looked up in this container by its plaintext id and partition key through the target policy, decrypted and "
        + "compared. Needs --dek-container and a key-encryption key. Exit code 5 when the copy is not complete.");

    private readonly Option<string> _dekDatabase = ToolOptions.Text("--dek-database", "NAME", "Database of the DEK container (with --target-container). Default: --database.");

    private readonly Option<string> _dekContainer = ToolOptions.Text(
        "--dek-container", "NAME", "The DEK container holding the target DEK and the accepted source DEKs (with --target-container; only read).");

    private readonly Option<string> _kekFile = ToolOptions.Text(
        "--kek-file", "PATH", "Local key-encryption key that wrapped the DEKs (with --target-container), as for migrate.");

    private readonly Option<string> _keyVault = ToolOptions.KeyVaultCredential();

    private readonly Option<string[]> _acceptDek = ToolOptions.Repeated(
        "--accept-dek", "ID", "A source DEK documents may be encrypted with besides the target DEK (with --target-container); repeat for more.");

    public StatusCommandLine()
        : base(
            CommandKind.Status,
            "status",
            "Count a container's documents per DEK and against a target policy; needs no key.",
            "Reads every document's encryption metadata once (about one request unit per kilobyte stored) and prints one line of "
            + "JSON: the documents in total and per DEK id, without encryption, with plaintext in a path of the target policy, "
            + "with paths other than the policy's, unreadable, in and outside the target state. A DEK with no documents can be "
            + "retired. Decrypts nothing. With --target-container it reports a copy instead (it then needs the DEKs): the source "
            + "documents copied, missing from the target, different there, unreadable, and the target's documents only there and "
            + "outside the target state.")
    {
        AddOptions(_endpoint, _database, _container, _dekId, _paths, _deterministicPaths, _targetContainer, _dekDatabase, _dekContainer, _kekFile, _keyVault, _acceptDek);
    }

    public override ToolArguments Bind(ParseResult result)
    {
        string? dekId = result.ValueOf(_dekId);
        string[] deterministic = result.ValueOf(_deterministicPaths) ?? [];
        string[] paths = [.. result.ValueOf(_paths) ?? [], .. deterministic];
        RequireTargetShape(dekId, paths, SeeHelp);
        string? targetContainer = result.ValueOf(_targetContainer);
        string? kekFile = result.ValueOf(_kekFile);
        string[] acceptedDeks = result.ValueOf(_acceptDek) ?? [];
        if (targetContainer is null)
        {
            // Without a copy nothing is decrypted: a key option would be ignored, and an ignored key misleads.
            Option[] keyOptions = [_dekDatabase, _dekContainer, _kekFile, _keyVault, _acceptDek];
            if (keyOptions.FirstOrDefault(o => result.IsGiven(o)) is { } keyOption)
            {
                throw ToolException.Usage($"{keyOption.Name} goes with --target-container: 'status' reads no key for one container {SeeHelp}.");
            }
        }
        else
        {
            if (string.Equals(targetContainer, result.ValueOf(_container), StringComparison.Ordinal))
            {
                throw ToolException.Usage($"--target-container names the --container itself: a copy's status compares two containers {SeeHelp}.");
            }

            if (!result.IsGiven(_dekContainer))
            {
                throw ToolException.Usage($"--target-container needs --dek-container NAME: a copy's status decrypts both containers {SeeHelp}.");
            }

            RequireOneKeyEncryptionKey(kekFile, result.IsGiven(_keyVault));
        }

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
                TargetContainer = targetContainer,
                DekDatabase = result.ValueOf(_dekDatabase),
                DekContainer = result.ValueOf(_dekContainer),
                KekFile = kekFile,
                AcceptedDekIds = acceptedDeks,
            },
        };
    }

    /// <summary>A target policy is a DEK and its paths, or neither (migrate and status).</summary>
    internal static void RequireTargetShape(string? dekId, IReadOnlyList<string> paths, string seeHelp)
    {
        if (dekId is null && paths.Count > 0)
        {
            throw ToolException.Usage($"--path goes with --dek-id: the target policy is a DEK and its paths {seeHelp}.");
        }

        if (dekId is not null && paths.Count == 0)
        {
            throw ToolException.Usage($"--dek-id needs at least one --path /NAME {seeHelp}.");
        }
    }
}

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

    public StatusCommandLine()
        : base(
            CommandKind.Status,
            "status",
            "Count a container's documents per DEK and against a target policy; needs no key.",
            "Reads every document's encryption metadata once (about one request unit per kilobyte stored) and prints one line of "
            + "JSON: the documents in total and per DEK id, without encryption, with plaintext in a path of the target policy, "
            + "with paths other than the policy's, unreadable, in and outside the target state. A DEK with no documents can be "
            + "retired. Decrypts nothing.")
    {
        AddOptions(_endpoint, _database, _container, _dekId, _paths);
    }

    public override ToolArguments Bind(ParseResult result)
    {
        string? dekId = result.ValueOf(_dekId);
        string[] paths = result.ValueOf(_paths) ?? [];
        RequireTargetShape(dekId, paths, SeeHelp);
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

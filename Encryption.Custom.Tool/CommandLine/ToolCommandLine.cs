using System.CommandLine;
using System.CommandLine.Help;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>The tool's commands, and the System.CommandLine root that parses them.</summary>
internal static class ToolCommandLine
{
    /// <summary>Every command, in the order the tool's help lists them.</summary>
    public static IReadOnlyList<ToolCommand> All { get; } =
    [
        new EncryptCommandLine(), new DecryptCommandLine(), new InspectCommandLine(), new MigrateCommandLine(), new StatusCommandLine(),
        new CreateDekCommandLine(), new ListDeksCommandLine(), new RewrapDekCommandLine(),
    ];

    /// <summary>
    /// The root: the commands, <c>--help</c> (also <c>-h</c>, <c>-?</c>; inherited by every command) and
    /// <c>--version</c>. The library's default help aliases add the Windows-style <c>/h</c> and <c>/?</c>, and its
    /// default <c>[suggest]</c> directive would read a first argument in brackets as a request for completions:
    /// neither is part of this tool's command line.
    /// </summary>
    public static RootCommand Root { get; } = CreateRoot();

    /// <summary>The command with this exact name, or <see langword="null"/>.</summary>
    public static ToolCommand? Find(string name) => All.FirstOrDefault(command => string.Equals(command.Name, name, StringComparison.Ordinal));

    private static RootCommand CreateRoot()
    {
        var root = new RootCommand("cosmos-encryption");
        root.Directives.Clear();
        for (int i = root.Options.Count - 1; i >= 0; i--)
        {
            if (root.Options[i] is HelpOption)
            {
                root.Options.RemoveAt(i);
            }
        }

        root.Options.Add(new HelpOption("--help", "-h", "-?"));
        foreach (ToolCommand command in All)
        {
            root.Subcommands.Add(command);
        }

        return root;
    }
}

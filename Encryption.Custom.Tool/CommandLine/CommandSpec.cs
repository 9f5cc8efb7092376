namespace Encryption.Custom.Tool.CommandLine;

/// <summary>One command: its name, what it does, and its options (the parser and the help text share this).</summary>
/// <param name="Kind">Which command.</param>
/// <param name="Name">The command as typed.</param>
/// <param name="Summary">One line for the tool's help.</param>
/// <param name="Description">The paragraph at the top of the command's help.</param>
/// <param name="Options">Its options, in help order.</param>
internal sealed record CommandSpec(CommandKind Kind, string Name, string Summary, string Description, IReadOnlyList<OptionSpec> Options)
{
    /// <summary>The option with this exact name, or <see langword="null"/>.</summary>
    public OptionSpec? FindOption(string name)
    {
        foreach (OptionSpec option in Options)
        {
            if (string.Equals(option.Name, name, StringComparison.Ordinal))
            {
                return option;
            }
        }

        return null;
    }
}

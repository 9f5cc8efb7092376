using System.CommandLine;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>
/// One of the tool's commands: a System.CommandLine <see cref="Command"/> (its name, description and options, which
/// the parser and the help text share) with the tool's own kind and one-line summary.
/// </summary>
internal sealed class ToolCommand : Command
{
    public ToolCommand(CommandKind kind, string name, string summary, string description, IEnumerable<Option> options)
        : base(name, description)
    {
        Kind = kind;
        Summary = summary;
        foreach (Option option in options)
        {
            Add(option);
        }
    }

    /// <summary>Which command.</summary>
    public CommandKind Kind { get; }

    /// <summary>One line for the tool's help.</summary>
    public string Summary { get; }

    /// <summary>The option with this exact name, or <see langword="null"/>.</summary>
    public Option? FindOption(string name)
    {
        foreach (Option option in Options)
        {
            if (string.Equals(option.Name, name, StringComparison.Ordinal))
            {
                return option;
            }
        }

        return null;
    }

    /// <summary>Whether <paramref name="option"/> may be given more than once (its values are a list).</summary>
    public static bool IsRepeatable(Option option) => option.Arity.MaximumNumberOfValues > 1;
}

using System.CommandLine;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>
/// One of the tool's commands: a System.CommandLine <see cref="Command"/> that defines its typed options (the parser,
/// the binding and the help text read the same definitions), binds their values to what the command runs with, and
/// checks the rules that concern several options at once.
/// </summary>
internal abstract class ToolCommand : Command
{
    protected ToolCommand(CommandKind kind, string name, string summary, string description)
        : base(name, description)
    {
        Kind = kind;
        Summary = summary;
    }

    /// <summary>Which command.</summary>
    public CommandKind Kind { get; }

    /// <summary>One line for the tool's help.</summary>
    public string Summary { get; }

    /// <summary>Points a usage error at this command's help.</summary>
    protected string SeeHelp => $"(see 'cosmos-encryption {Name} --help')";

    /// <summary>
    /// What the command runs with. Each option has converted and checked its own value by now; this checks how they go
    /// together.
    /// </summary>
    /// <exception cref="ToolException">A usage error (exit code 2).</exception>
    public abstract ToolArguments Bind(ParseResult result);

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

    /// <summary>Adds the options in the order the help lists them.</summary>
    protected void AddOptions(params Option[] options)
    {
        foreach (Option option in options)
        {
            Add(option);
        }
    }

    /// <summary>A wrapped DEK needs exactly one key-encryption key: a local file, or Key Vault.</summary>
    protected void RequireOneKeyEncryptionKey(string? kekFile, bool keyVault)
    {
        if ((kekFile is null) == !keyVault)
        {
            throw ToolException.Usage($"a wrapped DEK needs exactly one key-encryption key: --kek-file PATH or --key-vault-credential default {SeeHelp}.");
        }
    }
}

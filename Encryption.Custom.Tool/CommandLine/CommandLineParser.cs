using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>
/// Parses <c>cosmos-encryption &lt;command&gt; [--option value | --option=value]...</c>. Hand-written so that every
/// mistake maps to exit code 2 with one line that names the option, and so that nothing the operator typed is
/// echoed unless it is plainly a name (a key pasted in the wrong place must not end up in a log).
/// </summary>
internal static class CommandLineParser
{
    private const string ToolName = "cosmos-encryption";
    private const int MaxEchoedNameLength = 40;

    /// <summary>Parses <paramref name="args"/>.</summary>
    /// <exception cref="ToolException">A usage error (exit code 2).</exception>
    public static ToolArguments Parse(IReadOnlyList<string> args)
    {
        if (args.Count == 0)
        {
            throw ToolException.Usage($"no command given; expected encrypt, decrypt or inspect (see '{ToolName} --help').");
        }

        string first = args[0];
        if (IsHelp(first) || first == "--version")
        {
            if (args.Count > 1)
            {
                throw ToolException.Usage($"'{first}' takes no arguments (see '{ToolName} --help').");
            }

            return new ToolArguments { Action = IsHelp(first) ? ToolAction.ShowHelp : ToolAction.ShowVersion };
        }

        CommandSpec command = CommandCatalog.Find(first) ?? throw UnknownCommand(first);

        // Help wins over everything else on the line, so a half-typed command can still ask for it.
        for (int i = 1; i < args.Count; i++)
        {
            if (IsHelp(args[i]))
            {
                return new ToolArguments { Action = ToolAction.ShowHelp, Command = command };
            }
        }

        Dictionary<OptionSpec, List<string>> values = ReadOptions(command, args);
        foreach (OptionSpec option in command.Options)
        {
            if (option.Required && !values.ContainsKey(option))
            {
                throw ToolException.Usage($"'{command.Name}' needs the option {option.Name} {option.ValueName} (see '{ToolName} {command.Name} --help').");
            }
        }

        return new ToolArguments
        {
            Action = ToolAction.Run,
            Command = command,
            KeyFile = Single(values, OptionCatalog.KeyFile),
            DataEncryptionKeyId = Single(values, OptionCatalog.DataEncryptionKeyId),
            Paths = values.TryGetValue(OptionCatalog.Path, out List<string>? paths) ? paths : [],
            Processor = ParseProcessor(Single(values, OptionCatalog.Processor)),
            InputPath = Single(values, OptionCatalog.Input),
            OutputPath = Single(values, OptionCatalog.Output),
        };
    }

    private static Dictionary<OptionSpec, List<string>> ReadOptions(CommandSpec command, IReadOnlyList<string> args)
    {
        var values = new Dictionary<OptionSpec, List<string>>();
        for (int i = 1; i < args.Count; i++)
        {
            string token = args[i];
            if (!token.StartsWith("--", StringComparison.Ordinal) || token.Length == 2)
            {
                throw UnexpectedArgument(command, token, i);
            }

            int equals = token.IndexOf('=', StringComparison.Ordinal);
            string name = equals < 0 ? token : token[..equals];
            OptionSpec option = command.FindOption(name)
                ?? throw ToolException.Usage($"unknown option '{EchoName(name, MaxEchoedNameLength)}' for '{command.Name}' (see '{ToolName} {command.Name} --help').");

            string? value = null;
            if (equals >= 0)
            {
                value = token[(equals + 1)..];
            }
            else if (i + 1 < args.Count && !args[i + 1].StartsWith("--", StringComparison.Ordinal))
            {
                value = args[++i];
            }

            if (string.IsNullOrEmpty(value))
            {
                throw ToolException.Usage($"option {option.Name} needs a value ({option.ValueName}).");
            }

            if (!values.TryGetValue(option, out List<string>? list))
            {
                values[option] = list = [];
            }
            else if (!option.Repeatable)
            {
                throw ToolException.Usage($"option {option.Name} is given more than once.");
            }

            list.Add(value);
        }

        return values;
    }

    private static JsonProcessor ParseProcessor(string? value) => value switch
    {
        null => JsonProcessor.Stream,
        _ when value.Equals("stream", StringComparison.OrdinalIgnoreCase) => JsonProcessor.Stream,
        _ when value.Equals("newtonsoft", StringComparison.OrdinalIgnoreCase) => JsonProcessor.Newtonsoft,
        _ => throw ToolException.Usage($"unknown processor '{EchoWord(value)}'; expected 'stream' or 'newtonsoft'."),
    };

    private static string? Single(Dictionary<OptionSpec, List<string>> values, OptionSpec option) =>
        values.TryGetValue(option, out List<string>? list) ? list[0] : null;

    private static bool IsHelp(string token) => token is "--help" or "-h" or "-?";

    private static ToolException UnknownCommand(string token) => token.StartsWith('-')
        ? ToolException.Usage($"unknown option '{EchoName(token, MaxEchoedNameLength)}'; expected a command: encrypt, decrypt or inspect (see '{ToolName} --help').")
        : ToolException.Usage($"unknown command '{EchoWord(token)}'; expected encrypt, decrypt or inspect (see '{ToolName} --help').");

    private static ToolException UnexpectedArgument(CommandSpec command, string token, int index) => token.StartsWith('-') && token.Length > 1
        ? ToolException.Usage($"unknown option '{EchoName(token, MaxEchoedNameLength)}' for '{command.Name}'; options start with '--' (see '{ToolName} {command.Name} --help').")
        : ToolException.Usage($"unexpected argument at position {index + 1} for '{command.Name}' (not printed); every value follows its option, as in '--in PATH' (see '{ToolName} {command.Name} --help').");

    // A word that is plainly a mistyped name is echoed; anything else (possibly key material) is not.
    private static string EchoWord(string token)
    {
        const int MaxWordLength = 20;
        if (token.Length > MaxWordLength)
        {
            return "(not printed)";
        }

        foreach (char c in token)
        {
            if (!char.IsAsciiLetter(c) && c != '-')
            {
                return "(not printed)";
            }
        }

        return token;
    }

    // Option names start with '-' and are echoed, shortened: nobody types a key there by accident in full.
    private static string EchoName(string name, int maxLength) =>
        name.Length <= maxLength ? name : string.Concat(name.AsSpan(0, maxLength), "…");
}

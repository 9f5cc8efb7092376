using System.CommandLine;
using System.CommandLine.Help;
using System.CommandLine.Parsing;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>
/// Parses <c>cosmos-encryption &lt;command&gt; [--option value | --option=value]...</c> with System.CommandLine
/// (<see cref="ToolCommandLine.Root"/>) and turns every mistake it finds into the tool's own usage error: exit
/// code 2 and one line that names the option. The library's own messages are never shown, because they quote
/// whatever the operator typed, and a key pasted in the wrong place must not end up in a log: only what is plainly
/// a name is echoed.
/// </summary>
internal static class CommandLineParser
{
    private const string ToolName = "cosmos-encryption";
    private const int MaxEchoedNameLength = 40;

    private static readonly ParserConfiguration s_configuration = new()
    {
        // "-abc" is not three flags, and "@file" is a value, not a file of arguments to read.
        EnablePosixBundling = false,
        ResponseFileTokenReplacer = null,
    };

    /// <summary>Parses <paramref name="args"/>.</summary>
    /// <exception cref="ToolException">A usage error (exit code 2).</exception>
    public static ToolArguments Parse(IReadOnlyList<string> args)
    {
        ParseResult result = ToolCommandLine.Root.Parse(args, s_configuration);
        var tokens = new TokenPositions(result.Tokens, args);
        if (result.CommandResult.Command is not ToolCommand command)
        {
            return ParseWithoutCommand(args, tokens);
        }

        // Help wins over everything else on the line, so a half-typed command can still ask for it.
        if (result.Action is HelpAction)
        {
            return new ToolArguments { Action = ToolAction.ShowHelp, Command = command };
        }

        CheckTokens(command, result, tokens);
        foreach (Option option in command.Options)
        {
            if (option.Required && !result.IsGiven(option))
            {
                throw ToolException.Usage($"'{command.Name}' needs the option {option.Name} {option.HelpName} (see '{ToolName} {command.Name} --help').");
            }
        }

        // Each option has converted and checked its own value; the first it refused is the error.
        if (UsageErrors.FirstOf(result, command.Name) is { } message)
        {
            throw ToolException.Usage(message);
        }

        return command.Bind(result);
    }

    // No command: the tool's help or version, or a mistake.
    private static ToolArguments ParseWithoutCommand(IReadOnlyList<string> args, TokenPositions tokens)
    {
        if (args.Count == 0)
        {
            throw ToolException.Usage($"no command given; expected {CommandList} (see '{ToolName} --help').");
        }

        string first = args[0];
        if (tokens.Count > 0 && tokens[0].Type == TokenType.Option)
        {
            // The root's only options are --help (-h, -?) and --version.
            if (args.Count > 1)
            {
                throw ToolException.Usage($"'{EchoName(first, MaxEchoedNameLength)}' takes no arguments (see '{ToolName} --help').");
            }

            return new ToolArguments { Action = tokens[0].Value == "--version" ? ToolAction.ShowVersion : ToolAction.ShowHelp };
        }

        throw first.StartsWith('-')
            ? ToolException.Usage($"unknown option '{EchoName(first, MaxEchoedNameLength)}'; expected a command: {CommandList} (see '{ToolName} --help').")
            : ToolException.Usage($"unknown command '{UsageErrors.EchoWord(first)}'; expected {CommandList} (see '{ToolName} --help').");
    }

    // The command's tokens in order: the first stray one, or option given without a value, twice, or with another
    // option's name as its value, is the error.
    private static void CheckTokens(ToolCommand command, ParseResult result, TokenPositions tokens)
    {
        var seen = new HashSet<Option>();
        for (int i = 0; i < tokens.Count; i++)
        {
            Token token = tokens[i];
            switch (token.Type)
            {
                case TokenType.Option when command.FindOption(token.Value) is { } option:
                    if (!seen.Add(option) && !ToolCommand.IsRepeatable(option))
                    {
                        throw ToolException.Usage($"option {option.Name} is given more than once.");
                    }

                    if (option.Arity.MaximumNumberOfValues == 0)
                    {
                        // A flag: what follows is the next option (or a stray argument, found on the next turn).
                        break;
                    }

                    // A value must follow its option (or its '='); one that starts with '--' only after '=', so that
                    // '--in --out x' is a forgotten value, not a file named '--out'.
                    bool hasValue = i + 1 < tokens.Count
                        && tokens[i + 1].Type == TokenType.Argument
                        && tokens[i + 1].Value.Length > 0
                        && (tokens.IsAttached(i + 1) || !tokens[i + 1].Value.StartsWith("--", StringComparison.Ordinal))
                        && IsValueOf(result, option, tokens[i + 1]);
                    if (!hasValue)
                    {
                        throw ToolException.Usage($"option {option.Name} needs a value ({option.HelpName}).");
                    }

                    i++;
                    break;
                case TokenType.Command:
                    break;
                default:
                    throw UnexpectedArgument(command, token.Value, tokens.ArgumentIndex(i));
            }
        }
    }

    private static bool IsValueOf(ParseResult result, Option option, Token token)
    {
        foreach (Token value in result.GetResult(option)?.Tokens ?? [])
        {
            if (ReferenceEquals(value, token))
            {
                return true;
            }
        }

        return false;
    }

    private static string CommandList => string.Join(", ", ToolCommandLine.All.Take(ToolCommandLine.All.Count - 1).Select(c => c.Name))
        + " or " + ToolCommandLine.All[^1].Name;

    private static ToolException UnexpectedArgument(ToolCommand command, string token, int index) => token.StartsWith("--", StringComparison.Ordinal) && token.Length > 2
        ? ToolException.Usage($"unknown option '{EchoName(OptionName(token), MaxEchoedNameLength)}' for '{command.Name}' (see '{ToolName} {command.Name} --help').")
        : token.StartsWith('-') && token.Length > 1
        ? ToolException.Usage($"unknown option '{EchoName(token, MaxEchoedNameLength)}' for '{command.Name}'; options start with '--' (see '{ToolName} {command.Name} --help').")
        : ToolException.Usage($"unexpected argument at position {index + 1} for '{command.Name}' (not printed); every value follows its option, as in '--in PATH' (see '{ToolName} {command.Name} --help').");

    // "--name=value" is echoed as its name only.
    private static string OptionName(string token)
    {
        int equals = token.IndexOf('=', StringComparison.Ordinal);
        return equals < 0 ? token : token[..equals];
    }

    // Option names start with '-' and are echoed, shortened: nobody types a key there by accident in full.
    private static string EchoName(string name, int maxLength) =>
        name.Length <= maxLength ? name : string.Concat(name.AsSpan(0, maxLength), "…");
}

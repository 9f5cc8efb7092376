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

        string? keyFile = Single(values, OptionCatalog.KeyFile) ?? Single(values, OptionCatalog.KeyFileOrWrappedKey);
        WrappedKeyArguments? wrappedKey = command.Kind == CommandKind.Decrypt ? ParseKeySource(command, values, keyFile) : null;
        return new ToolArguments
        {
            Action = ToolAction.Run,
            Command = command,
            KeyFile = keyFile,
            WrappedKey = wrappedKey,
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

    // Decrypt takes exactly one key source: a raw key file, or a DEK document (file or endpoint) with exactly one
    // key-encryption key (local file or Key Vault).
    private static WrappedKeyArguments? ParseKeySource(CommandSpec command, Dictionary<OptionSpec, List<string>> values, string? keyFile)
    {
        string? dekFile = Single(values, OptionCatalog.DekFile);
        string? endpoint = Single(values, OptionCatalog.DekEndpoint);
        string? database = Single(values, OptionCatalog.DekDatabase);
        string? container = Single(values, OptionCatalog.DekContainer);
        string? kekFile = Single(values, OptionCatalog.KekFile);
        string? credential = Single(values, OptionCatalog.KeyVaultCredential);
        string help = $"(see '{ToolName} {command.Name} --help')";

        if (keyFile is not null)
        {
            if (dekFile is not null || endpoint is not null || database is not null || container is not null || kekFile is not null || credential is not null)
            {
                throw ToolException.Usage($"--key-file is a raw key: it cannot be combined with --dek-* or key-encryption key options {help}.");
            }

            return null;
        }

        if (dekFile is null && endpoint is null)
        {
            throw ToolException.Usage($"'{command.Name}' needs a key: --key-file PATH, or --dek-file PATH or --dek-endpoint URI with --kek-file PATH or --key-vault-credential default {help}.");
        }

        if (dekFile is not null && endpoint is not null)
        {
            throw ToolException.Usage($"give the DEK document either as --dek-file or through --dek-endpoint, not both {help}.");
        }

        Uri? endpointUri = null;
        if (endpoint is not null)
        {
            if (database is null || container is null)
            {
                throw ToolException.Usage($"--dek-endpoint needs --dek-database NAME and --dek-container NAME {help}.");
            }

            if (!Uri.TryCreate(endpoint, UriKind.Absolute, out endpointUri) || endpointUri.Scheme != Uri.UriSchemeHttps)
            {
                throw ToolException.Usage($"--dek-endpoint needs an absolute https URI {help}.");
            }
        }
        else if (database is not null || container is not null)
        {
            throw ToolException.Usage($"--dek-database and --dek-container go with --dek-endpoint {help}.");
        }

        if ((kekFile is null) == (credential is null))
        {
            throw ToolException.Usage($"a wrapped DEK needs exactly one key-encryption key: --kek-file PATH or --key-vault-credential default {help}.");
        }

        if (credential is not null && !credential.Equals("default", StringComparison.OrdinalIgnoreCase))
        {
            throw ToolException.Usage($"unknown credential '{EchoWord(credential)}' for --key-vault-credential; expected 'default'.");
        }

        return new WrappedKeyArguments { DekFile = dekFile, Endpoint = endpointUri, Database = database, Container = container, KekFile = kekFile };
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

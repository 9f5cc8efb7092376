using System.CommandLine;
using System.CommandLine.Help;
using System.CommandLine.Parsing;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>
/// Parses <c>cosmos-encryption &lt;command&gt; [--option value | --option=value]...</c> with System.CommandLine
/// (<see cref="CommandCatalog.Root"/>) and turns every mistake it finds into the tool's own usage error: exit
/// code 2 and one line that names the option. The library's own messages are never shown, because they quote
/// whatever the operator typed, and a key pasted in the wrong place must not end up in a log: only what is plainly
/// a name is echoed.
/// </summary>
internal static partial class CommandLineParser
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
        ParseResult result = CommandCatalog.Root.Parse(args, s_configuration);
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
            if (option.Required && !IsGiven(result, option))
            {
                throw ToolException.Usage($"'{command.Name}' needs the option {option.Name} {option.HelpName} (see '{ToolName} {command.Name} --help').");
            }
        }

        if (result.Errors.Count > 0)
        {
            // Every error System.CommandLine reports for this grammar is caught above; should a new version find one
            // more, it is still a usage error, without its message (which quotes the command line).
            throw ToolException.Usage($"the command line cannot be parsed (see '{ToolName} {command.Name} --help').");
        }

        if (command.Kind is CommandKind.CreateDek or CommandKind.ListDeks or CommandKind.RewrapDek)
        {
            return new ToolArguments { Action = ToolAction.Run, Command = command, Deks = ParseDeks(command, result) };
        }

        if (command.Kind is CommandKind.Migrate or CommandKind.Status)
        {
            return new ToolArguments { Action = ToolAction.Run, Command = command, Migration = ParseMigration(command, result) };
        }

        string? keyFile = Value(result, OptionCatalog.KeyFile) ?? Value(result, OptionCatalog.KeyFileOrWrappedKey);
        WrappedKeyArguments? wrappedKey = command.Kind == CommandKind.Decrypt ? ParseKeySource(command, result, keyFile) : null;
        return new ToolArguments
        {
            Action = ToolAction.Run,
            Command = command,
            KeyFile = keyFile,
            WrappedKey = wrappedKey,
            DataEncryptionKeyId = Value(result, OptionCatalog.DataEncryptionKeyId),
            Paths = result.GetValue(OptionCatalog.Path) ?? [],
            Processor = ParseProcessor(Value(result, OptionCatalog.Processor)),
            InputPath = Value(result, OptionCatalog.Input),
            OutputPath = Value(result, OptionCatalog.Output),
        };
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
            : ToolException.Usage($"unknown command '{EchoWord(first)}'; expected {CommandList} (see '{ToolName} --help').");
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

    private static bool IsGiven(ParseResult result, Option option) => result.GetResult(option) is { Implicit: false, IdentifierTokenCount: > 0 };

    private static string? Value(ParseResult result, Option<string> option) => IsGiven(result, option) ? result.GetValue(option) : null;

    private static string CommandList => string.Join(", ", CommandCatalog.All.Take(CommandCatalog.All.Count - 1).Select(c => c.Name))
        + " or " + CommandCatalog.All[^1].Name;

    // Decrypt takes exactly one key source: a raw key file, or a DEK document (file or endpoint) with exactly one
    // key-encryption key (local file or Key Vault).
    private static WrappedKeyArguments? ParseKeySource(ToolCommand command, ParseResult result, string? keyFile)
    {
        string? dekFile = Value(result, OptionCatalog.DekFile);
        string? endpoint = Value(result, OptionCatalog.DekEndpoint);
        string? database = Value(result, OptionCatalog.DekDatabase);
        string? container = Value(result, OptionCatalog.DekContainer);
        string? kekFile = Value(result, OptionCatalog.KekFile);
        string? credential = Value(result, OptionCatalog.KeyVaultCredential);
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

            endpointUri = HttpsUri(endpoint, "--dek-endpoint", help);
        }
        else if (database is not null || container is not null)
        {
            throw ToolException.Usage($"--dek-database and --dek-container go with --dek-endpoint {help}.");
        }

        CheckKeyEncryptionKey(kekFile, credential, help);
        return new WrappedKeyArguments { DekFile = dekFile, Endpoint = endpointUri, Database = database, Container = container, KekFile = kekFile };
    }

    // migrate and status: the container, the target state, and for migrate the keys and how the job runs.
    private static MigrationArguments ParseMigration(ToolCommand command, ParseResult result)
    {
        string help = $"(see '{ToolName} {command.Name} --help')";
        bool isMigrate = command.Kind == CommandKind.Migrate;
        string? targetDekId = Value(result, isMigrate ? OptionCatalog.TargetDekId : OptionCatalog.StatusDekId);
        string[] deterministic = isMigrate ? result.GetValue(OptionCatalog.DeterministicPath) ?? [] : [];
        string[] paths = [.. result.GetValue(isMigrate ? OptionCatalog.TargetPath : OptionCatalog.StatusPath) ?? [], .. deterministic];
        bool decrypt = isMigrate && IsGiven(result, OptionCatalog.Decrypt);
        if (targetDekId is null && paths.Length > 0)
        {
            throw ToolException.Usage($"--path goes with --dek-id: the target policy is a DEK and its paths {help}.");
        }

        if (targetDekId is not null && paths.Length == 0)
        {
            throw ToolException.Usage($"--dek-id needs at least one --path /NAME {help}.");
        }

        string[] decryptPaths = isMigrate ? result.GetValue(OptionCatalog.DecryptPath) ?? [] : [];
        if (decryptPaths.FirstOrDefault(p => paths.Contains(p, StringComparer.Ordinal)) is { } kept)
        {
            throw ToolException.Usage($"--decrypt-path {EchoPath(kept)} names a path the target encrypts (--path); a path is either decrypted or kept {help}.");
        }

        if (isMigrate && decrypt == (targetDekId is not null))
        {
            throw ToolException.Usage($"'migrate' needs a target: --dek-id ID with --path /NAME, or --decrypt {help}.");
        }

        Uri endpoint = HttpsUri(Value(result, OptionCatalog.Endpoint)!, "--endpoint", help);
        if (!isMigrate)
        {
            return new MigrationArguments
            {
                Endpoint = endpoint,
                Database = Value(result, OptionCatalog.Database)!,
                Container = Value(result, OptionCatalog.Container)!,
                TargetDekId = targetDekId,
                TargetPaths = paths,
            };
        }

        string? kekFile = Value(result, OptionCatalog.MigrationKekFile);
        string? credential = Value(result, OptionCatalog.KeyVaultCredential);
        CheckKeyEncryptionKey(kekFile, credential, help);
        return new MigrationArguments
        {
            Endpoint = endpoint,
            Database = Value(result, OptionCatalog.Database)!,
            Container = Value(result, OptionCatalog.Container)!,
            TargetDekId = targetDekId,
            TargetPaths = paths,
            DeterministicPaths = deterministic,
            DecryptPaths = decryptPaths,
            ChangeTypePaths = result.GetValue(OptionCatalog.ChangeTypePath) ?? [],
            DryRun = IsGiven(result, OptionCatalog.DryRun),
            FailuresFile = Value(result, OptionCatalog.FailuresFile),
            LeaseContainer = Value(result, OptionCatalog.LeaseContainer),
            DekDatabase = Value(result, OptionCatalog.MigrationDekDatabase),
            DekContainer = Value(result, OptionCatalog.MigrationDekContainer),
            KekFile = kekFile,
            AcceptedDekIds = result.GetValue(OptionCatalog.AcceptDek) ?? [],
            RequestUnitsPerSecond = Positive<double>(Value(result, OptionCatalog.Budget), OptionCatalog.Budget),
            Parallelism = Positive<int>(Value(result, OptionCatalog.Parallelism), OptionCatalog.Parallelism),
            BatchSize = Positive<int>(Value(result, OptionCatalog.BatchSize), OptionCatalog.BatchSize),
            Bulk = IsGiven(result, OptionCatalog.Bulk),
            JobName = Value(result, OptionCatalog.JobName),
            Processor = ParseProcessor(Value(result, OptionCatalog.Processor)),
        };
    }

    // Like every value, a bad number is not echoed.
    private static T? Positive<T>(string? text, Option option)
        where T : struct, System.Numerics.INumber<T>
    {
        if (text is null)
        {
            return null;
        }

        System.Globalization.NumberStyles style = typeof(T) == typeof(double) ? System.Globalization.NumberStyles.Float : System.Globalization.NumberStyles.Integer;
        return T.TryParse(text, style, System.Globalization.CultureInfo.InvariantCulture, out T value) && T.IsPositive(value) && !T.IsZero(value) && T.IsFinite(value)
            ? value
            : throw ToolException.Usage($"option {option.Name} needs a positive number ({option.HelpName}).");
    }

    private static Uri HttpsUri(string text, string optionName, string help) =>
        Uri.TryCreate(text, UriKind.Absolute, out Uri? uri) && uri.Scheme == Uri.UriSchemeHttps
            ? uri
            : throw ToolException.Usage($"{optionName} needs an absolute https URI {help}.");

    private static void CheckKeyEncryptionKey(string? kekFile, string? credential, string help)
    {
        if ((kekFile is null) == (credential is null))
        {
            throw ToolException.Usage($"a wrapped DEK needs exactly one key-encryption key: --kek-file PATH or --key-vault-credential default {help}.");
        }

        if (credential is not null && !credential.Equals("default", StringComparison.OrdinalIgnoreCase))
        {
            throw ToolException.Usage($"unknown credential '{EchoWord(credential)}' for --key-vault-credential; expected 'default'.");
        }
    }

    private static JsonProcessor ParseProcessor(string? value) => value switch
    {
        null => JsonProcessor.Stream,
        _ when value.Equals("stream", StringComparison.OrdinalIgnoreCase) => JsonProcessor.Stream,
        _ when value.Equals("newtonsoft", StringComparison.OrdinalIgnoreCase) => JsonProcessor.Newtonsoft,
        _ => throw ToolException.Usage($"unknown processor '{EchoWord(value)}'; expected 'stream' or 'newtonsoft'."),
    };

    private static ToolException UnexpectedArgument(ToolCommand command, string token, int index) => token.StartsWith("--", StringComparison.Ordinal) && token.Length > 2
        ? ToolException.Usage($"unknown option '{EchoName(OptionName(token), MaxEchoedNameLength)}' for '{command.Name}' (see '{ToolName} {command.Name} --help').")
        : token.StartsWith('-') && token.Length > 1
        ? ToolException.Usage($"unknown option '{EchoName(token, MaxEchoedNameLength)}' for '{command.Name}'; options start with '--' (see '{ToolName} {command.Name} --help').")
        : ToolException.Usage($"unexpected argument at position {index + 1} for '{command.Name}' (not printed); every value follows its option, as in '--in PATH' (see '{ToolName} {command.Name} --help').");

    // A path the operator typed is echoed like a name: plainly a path, or not at all.
    private static string EchoPath(string path) =>
        path.Length <= MaxEchoedNameLength && path.StartsWith('/') && path.Skip(1).All(c => char.IsAsciiLetterOrDigit(c) || c is '_' or '-') ? path : "(not printed)";

    // "--name=value" is echoed as its name only.
    private static string OptionName(string token)
    {
        int equals = token.IndexOf('=', StringComparison.Ordinal);
        return equals < 0 ? token : token[..equals];
    }

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

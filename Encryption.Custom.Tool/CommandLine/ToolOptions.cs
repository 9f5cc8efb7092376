using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;
using System.Numerics;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>
/// Typed System.CommandLine options with the tool's value rules: each option converts its own value (a URI, a
/// positive number, a processor, the credential) and reports a bad one with the tool's message through
/// <see cref="UsageErrors"/>, which never echoes what was typed unless it is plainly a name. Each command defines its
/// options with these factories (ToolCommand subclasses), so the parser, the binding and the help read one definition.
/// </summary>
internal static class ToolOptions
{
    /// <summary>A text value (a file, a name, an id).</summary>
    public static Option<string> Text(string name, string helpName, string description, bool required = false) =>
        new(name) { HelpName = helpName, Description = description, Required = required };

    /// <summary>A repeatable text value (each <c>--path /NAME</c>), in the order given.</summary>
    public static Option<string[]> Repeated(string name, string helpName, string description, bool required = false) =>
        new(name) { HelpName = helpName, Description = description, Required = required, Arity = ArgumentArity.OneOrMore };

    /// <summary>A flag: given or not, no value.</summary>
    public static Option<bool> Flag(string name, string description) =>
        new(name) { Arity = ArgumentArity.Zero, Description = description };

    /// <summary>An absolute https URI (an account endpoint).</summary>
    public static Option<Uri> HttpsUri(string name, string description, bool required = false) => new(name)
    {
        HelpName = "URI",
        Description = description,
        Required = required,
        CustomParser = result =>
            Uri.TryCreate(Single(result), UriKind.Absolute, out Uri? uri) && uri.Scheme == Uri.UriSchemeHttps
                ? uri
                : UsageErrors.Add<Uri>(result, $"{name} needs an absolute https URI{SeeHelp(result)}."),
    };

    /// <summary>A positive, finite number (a budget, a count); a bad one is not echoed.</summary>
    public static Option<T?> Positive<T>(string name, string helpName, string description)
        where T : struct, INumber<T> => new(name)
    {
        HelpName = helpName,
        Description = description,
        CustomParser = result =>
        {
            NumberStyles style = typeof(T) == typeof(double) ? NumberStyles.Float : NumberStyles.Integer;
            return T.TryParse(Single(result), style, CultureInfo.InvariantCulture, out T value) && T.IsPositive(value) && !T.IsZero(value) && T.IsFinite(value)
                ? value
                : UsageErrors.Add<T?>(result, $"option {name} needs a positive number ({helpName}).");
        },
    };

    /// <summary><c>--processor stream|newtonsoft</c> (default: stream).</summary>
    public static Option<JsonProcessor> Processor() => new("--processor")
    {
        HelpName = "stream|newtonsoft",
        Description = "JSON processor: 'stream' (default; System.Text.Json, untouched bytes copied verbatim) or 'newtonsoft' "
            + "(the baseline; the document is re-serialized).",
        DefaultValueFactory = _ => JsonProcessor.Stream,
        CustomParser = result => result.Tokens.Count == 0 ? JsonProcessor.Stream : Single(result) switch
        {
            string value when value.Equals("stream", StringComparison.OrdinalIgnoreCase) => JsonProcessor.Stream,
            string value when value.Equals("newtonsoft", StringComparison.OrdinalIgnoreCase) => JsonProcessor.Newtonsoft,
            string value => UsageErrors.Add<JsonProcessor>(result, $"unknown processor '{UsageErrors.EchoWord(value)}'; expected 'stream' or 'newtonsoft'."),
        },
    };

    /// <summary>
    /// <c>--key-vault-credential default</c>: DefaultAzureCredential, the only credential (a string option: System.CommandLine
    /// reads only true or false after a boolean one).
    /// </summary>
    public static Option<string> KeyVaultCredential() => new("--key-vault-credential")
    {
        HelpName = "default",
        Description = "Unwrap the DEK with the Azure Key Vault key its document names, authenticating with DefaultAzureCredential "
            + "(environment, managed identity, Azure CLI...). 'default' is the only value.",
        CustomParser = result => Single(result) is var value && value.Equals("default", StringComparison.OrdinalIgnoreCase)
            ? value
            : UsageErrors.Add<string>(result, $"unknown credential '{UsageErrors.EchoWord(value)}' for --key-vault-credential; expected 'default'."),
    };

    /// <summary><c>--in PATH</c> (default: standard input).</summary>
    public static Option<string> Input() => Text("--in", "PATH", "Input document (UTF-8 JSON). Default: standard input.");

    /// <summary><c>--out PATH</c> (default: standard output).</summary>
    public static Option<string> Output() => Text(
        "--out",
        "PATH",
        "Output file. Written to a temporary file in the same folder and renamed over PATH only when the command succeeds; "
        + "created readable by its owner only. Default: standard output, written only after success.");

    /// <summary><c>--endpoint URI</c>, the account of migrate, status and the DEK commands.</summary>
    public static Option<Uri> Endpoint() => HttpsUri(
        "--endpoint",
        "Cosmos DB account endpoint (https). The account key comes from the COSMOS_KEY environment variable, or else "
        + "DefaultAzureCredential; a loopback endpoint (a local emulator) may have a self-signed certificate.",
        required: true);

    /// <summary>The value of an option that was given, or <see langword="null"/> (also for a flag not given).</summary>
    public static T? ValueOf<T>(this ParseResult result, Option<T> option) =>
        result.GetResult(option) is { Implicit: false, IdentifierTokenCount: > 0 } ? result.GetValue(option) : default;

    /// <summary>Whether the command line gave <paramref name="option"/>.</summary>
    public static bool IsGiven(this ParseResult result, Option option) => result.GetResult(option) is { Implicit: false, IdentifierTokenCount: > 0 };

    // The parser has checked that each option is given once with a value (CommandLineParser.CheckTokens).
    private static string Single(ArgumentResult result) => result.Tokens.Count > 0 ? result.Tokens[^1].Value : string.Empty;

    private static string SeeHelp(ArgumentResult result) =>
        result.Parent?.Parent is CommandResult { Command: ToolCommand command } ? $" (see 'cosmos-encryption {command.Name} --help')" : string.Empty;
}

using System.CommandLine;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary><c>create-dek</c>: the DEK container, the new DEK's id and algorithm, and the key-encryption key to wrap it with.</summary>
internal sealed class CreateDekCommandLine : DekCommandLine
{
    private static readonly string[] s_algorithms =
        [CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized];

    private readonly Option<string> _algorithm = new("--algorithm")
    {
        HelpName = "ALGORITHM",
        Description = "The DEK's encryption algorithm. Default: MdeAeadAes256CbcHmac256Randomized (the only one new documents are "
            + "written with).",
        DefaultValueFactory = _ => CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized,
        CustomParser = result => result.Tokens.Count == 0 ? s_algorithms[0] : result.Tokens[^1].Value is var value && s_algorithms.Contains(value, StringComparer.Ordinal)
            ? value
            : UsageErrors.Add<string>(result, $"unknown DEK algorithm '{UsageErrors.EchoWord(value)}'; expected {s_algorithms[0]} or {s_algorithms[1]}."),
    };

    private readonly Option<bool> _createContainer = ToolOptions.Flag(
        "--create-dek-container",
        "Create the DEK container (partition key /id, as the library's CosmosDataEncryptionKeyProvider.InitializeAsync creates it) "
        + "when it does not exist; an existing container with another partition key is refused. Without it a missing container is "
        + "refused (exit code 1), so a misspelt name is never created.");

    public CreateDekCommandLine()
        : base(
            CommandKind.CreateDek,
            "create-dek",
            "Create a data encryption key in the DEK container, wrapped by a key-encryption key.",
            "Generates a new 32-byte data encryption key, wraps it with the key-encryption key --kek-name names (a local key file, "
            + "or Azure Key Vault), checks that the wrapped key unwraps to the same bytes, and stores its document in the DEK "
            + "container, exactly as the library's DataEncryptionKeyContainer does. A DEK with that id is never replaced: the "
            + "command is refused (exit code 1, AlreadyExists). Prints the new DEK as one line of JSON (as list-deks does; never "
            + "key bytes).")
    {
        AddOptions(EndpointOption, DatabaseOption, ContainerOption, DekIdOption, KekFileOption, KeyVaultOption, KekNameOption, WrapAlgorithmOption, _algorithm, _createContainer);
    }

    public override ToolArguments Bind(ParseResult result) => new()
    {
        Action = ToolAction.Run,
        Command = this,
        Deks = BindDeks(result, result.GetValue(_algorithm) ?? throw new ToolException("no DEK algorithm.")) with { CreateContainer = result.GetValue(_createContainer) },
    };
}

using System.CommandLine;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary><c>rewrap-dek</c>: the DEK container, the DEK, the key-encryption key that unwraps it and the one to wrap it with.</summary>
internal sealed class RewrapDekCommandLine : DekCommandLine
{
    private readonly Option<string> _newKekFile = ToolOptions.Text(
        "--new-kek-file",
        "PATH",
        "The local key-encryption key file to wrap with, when it is not --kek-file (which unwraps the DEK under the name its "
        + "document records). Only with --kek-file.");

    public RewrapDekCommandLine()
        : base(
            CommandKind.RewrapDek,
            "rewrap-dek",
            "Wrap an existing DEK with another key-encryption key (KEK rotation).",
            "Unwraps the DEK with the key-encryption key its document names (--kek-file, registered under that name, or Key Vault), "
            + "wraps it with the one --kek-name names (from --new-kek-file when given, else --kek-file, or Key Vault), checks the "
            + "new wrapping and replaces the document on the condition of its ETag. The raw key does not change, so documents "
            + "encrypted with the DEK stay readable. Prints the rewrapped DEK as one line of JSON.")
    {
        AddOptions(EndpointOption, DatabaseOption, ContainerOption, DekIdOption, KekFileOption, KeyVaultOption, KekNameOption, WrapAlgorithmOption, _newKekFile);
    }

    public override ToolArguments Bind(ParseResult result) => new()
    {
        Action = ToolAction.Run,
        Command = this,
        Deks = BindDeks(result, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, kekFile =>
            result.IsGiven(_newKekFile) && kekFile is null
                ? throw ToolException.Usage($"--new-kek-file goes with --kek-file: Key Vault finds both keys by their identifiers {SeeHelp}.")
                : result.ValueOf(_newKekFile)),
    };
}

using System.CommandLine;
using Encryption.Custom.AzureKeyVault;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>
/// What create-dek, list-deks and rewrap-dek share: the DEK container on an endpoint, and for the two that wrap, the
/// key-encryption key options and the rules that turn them into the DEK document's wrap metadata.
/// </summary>
internal abstract class DekCommandLine : ToolCommand
{
    private const string WrapAlgorithms = "AES-KW, AES-KWP (oct keys), RSA-OAEP-256 or RSA-OAEP (RSA keys)";

    protected DekCommandLine(CommandKind kind, string name, string summary, string description)
        : base(kind, name, summary, description)
    {
    }

    protected Option<Uri> EndpointOption { get; } = ToolOptions.Endpoint();

    protected Option<string> DatabaseOption { get; } = ToolOptions.Text("--database", "NAME", "Database of the DEK container.", required: true);

    protected Option<string> ContainerOption { get; } = ToolOptions.Text(
        "--dek-container", "NAME", "The DEK container (partition key /id). It must exist: a misspelt name is not created.", required: true);

    protected Option<string> DekIdOption { get; } = ToolOptions.Text("--dek-id", "ID", "The data encryption key's id (documents name it in _ei._en).", required: true);

    protected Option<string> KekFileOption { get; } = ToolOptions.Text(
        "--kek-file", "PATH", "Local key-encryption key: a JSON Web Key (RSA or oct) or an RSA PEM file (a private key to unwrap).");

    protected Option<string> KeyVaultOption { get; } = ToolOptions.KeyVaultCredential();

    protected Option<string> KekNameOption { get; } = ToolOptions.Text(
        "--kek-name",
        "NAME|URI",
        "The key-encryption key to wrap with, as the DEK document records it: with --kek-file, the name the application's "
        + "LocalKeyWrapProvider knows the key by; with --key-vault-credential, the Key Vault key identifier "
        + "(https://VAULT/keys/NAME[/VERSION]).",
        required: true);

    protected Option<string> WrapAlgorithmOption { get; } = ToolOptions.Text(
        "--wrap-algorithm",
        "ALGORITHM",
        "The key-wrap algorithm: AES-KW or AES-KWP (an oct key), RSA-OAEP-256 or RSA-OAEP (an RSA key). Default: RSA-OAEP-256 "
        + "with --key-vault-credential; required with --kek-file.");

    /// <summary>The DEK container; for a command that wraps, also the DEK and its key-encryption key.</summary>
    protected DekArguments BindDeks(ParseResult result, string algorithm, Func<string?, string?>? newKekFile = null)
    {
        string? kekFile = result.ValueOf(KekFileOption);
        RequireOneKeyEncryptionKey(kekFile, result.IsGiven(KeyVaultOption));
        string? newKek = newKekFile?.Invoke(kekFile);
        return new DekArguments
        {
            Endpoint = result.ValueOf(EndpointOption)!,
            Database = result.ValueOf(DatabaseOption)!,
            Container = result.ValueOf(ContainerOption)!,
            DekId = result.ValueOf(DekIdOption) is { Length: > 0 } id ? id : throw ToolException.Usage($"--dek-id needs a non-empty id {SeeHelp}."),
            Algorithm = algorithm,
            WrapMetadata = WrapMetadata(kekFile is not null, result.ValueOf(KekNameOption)!, result.ValueOf(WrapAlgorithmOption)),
            KekFile = kekFile,
            NewKekFile = newKek,
        };
    }

    /// <summary>The DEK container alone (list-deks).</summary>
    protected DekArguments BindContainer(ParseResult result) => new()
    {
        Endpoint = result.ValueOf(EndpointOption)!,
        Database = result.ValueOf(DatabaseOption)!,
        Container = result.ValueOf(ContainerOption)!,
    };

    // The metadata is built here, by the providers' own factories, so that a typo in a name or an algorithm is a usage
    // error before anything is read or wrapped, never a DEK document that no provider can use.
    private EncryptionKeyWrapMetadata WrapMetadata(bool local, string kekName, string? wrapAlgorithm)
    {
        if (local)
        {
            if (wrapAlgorithm is null)
            {
                throw ToolException.Usage($"--kek-file needs --wrap-algorithm ALGORITHM: {WrapAlgorithms} {SeeHelp}.");
            }

            try
            {
                return LocalKeyWrapProvider.CreateMetadata(kekName, wrapAlgorithm);
            }
            catch (ArgumentException)
            {
                throw string.IsNullOrWhiteSpace(kekName)
                    ? ToolException.Usage($"--kek-name needs a non-empty name {SeeHelp}.")
                    : ToolException.Usage($"unknown wrap algorithm (not printed) for --wrap-algorithm; expected {WrapAlgorithms}.");
            }
        }

        if (!Uri.TryCreate(kekName, UriKind.Absolute, out Uri? keyId))
        {
            throw ToolException.Usage($"with --key-vault-credential, --kek-name needs the Key Vault key identifier (https://VAULT/keys/NAME[/VERSION]) {SeeHelp}.");
        }

        try
        {
            return AzureKeyVaultKeyWrapProvider.CreateMetadata(keyId, wrapAlgorithm ?? KeyWrapAlgorithm.RsaOaep256);
        }
        catch (ArgumentException)
        {
            // The provider's message may quote what was typed; the rule is said instead.
            throw ToolException.Usage($"with --key-vault-credential, --kek-name needs a Key Vault key identifier (https://VAULT/keys/NAME[/VERSION], without user information, query or fragment) and --wrap-algorithm RSA-OAEP-256 (default) or RSA-OAEP {SeeHelp}.");
        }
    }
}

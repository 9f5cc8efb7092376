using System.CommandLine;
using Encryption.Custom.AzureKeyVault;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>The DEK commands' options: the DEK container, and for create-dek and rewrap-dek the key-encryption key.</summary>
internal static partial class CommandLineParser
{
    private static DekArguments ParseDeks(ToolCommand command, ParseResult result)
    {
        string help = $"(see '{ToolName} {command.Name} --help')";
        Uri endpoint = HttpsUri(Value(result, OptionCatalog.Endpoint)!, "--endpoint", help);
        string database = Value(result, DekOptionCatalog.Database)!;
        string container = Value(result, DekOptionCatalog.Container)!;
        if (command.Kind == CommandKind.ListDeks)
        {
            return new DekArguments { Endpoint = endpoint, Database = database, Container = container };
        }

        string? kekFile = Value(result, DekOptionCatalog.KekFile);
        string? credential = Value(result, OptionCatalog.KeyVaultCredential);
        CheckKeyEncryptionKey(kekFile, credential, help);
        string? newKekFile = command.Kind == CommandKind.RewrapDek ? Value(result, DekOptionCatalog.NewKekFile) : null;
        if (newKekFile is not null && kekFile is null)
        {
            throw ToolException.Usage($"--new-kek-file goes with --kek-file: Key Vault finds both keys by their identifiers {help}.");
        }

        string algorithm = Value(result, DekOptionCatalog.Algorithm) ?? CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;
        if (algorithm is not (CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized or CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized))
        {
            throw ToolException.Usage($"unknown DEK algorithm '{EchoWord(algorithm)}'; expected {CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized} or {CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized}.");
        }

        return new DekArguments
        {
            Endpoint = endpoint,
            Database = database,
            Container = container,
            DekId = Value(result, DekOptionCatalog.DekId) is { Length: > 0 } id ? id : throw ToolException.Usage($"--dek-id needs a non-empty id {help}."),
            Algorithm = algorithm,
            WrapMetadata = WrapMetadata(kekFile is not null, Value(result, DekOptionCatalog.KekName)!, Value(result, DekOptionCatalog.WrapAlgorithm), help),
            KekFile = kekFile,
            NewKekFile = newKekFile,
        };
    }

    // The metadata is built here, by the providers' own factories, so that a typo in a name or an algorithm is a
    // usage error before anything is read or wrapped, never a DEK document that no provider can use.
    private static EncryptionKeyWrapMetadata WrapMetadata(bool local, string kekName, string? wrapAlgorithm, string help)
    {
        const string Algorithms = "AES-KW, AES-KWP (oct keys), RSA-OAEP-256 or RSA-OAEP (RSA keys)";
        if (local)
        {
            if (wrapAlgorithm is null)
            {
                throw ToolException.Usage($"--kek-file needs --wrap-algorithm ALGORITHM: {Algorithms} {help}.");
            }

            try
            {
                return LocalKeyWrapProvider.CreateMetadata(kekName, wrapAlgorithm);
            }
            catch (ArgumentException)
            {
                throw string.IsNullOrWhiteSpace(kekName)
                    ? ToolException.Usage($"--kek-name needs a non-empty name {help}.")
                    : ToolException.Usage($"unknown wrap algorithm (not printed) for --wrap-algorithm; expected {Algorithms}.");
            }
        }

        if (!Uri.TryCreate(kekName, UriKind.Absolute, out Uri? keyId))
        {
            throw ToolException.Usage($"with --key-vault-credential, --kek-name needs the Key Vault key identifier (https://VAULT/keys/NAME[/VERSION]) {help}.");
        }

        try
        {
            return AzureKeyVaultKeyWrapProvider.CreateMetadata(keyId, wrapAlgorithm ?? KeyWrapAlgorithm.RsaOaep256);
        }
        catch (ArgumentException)
        {
            // The provider's message may quote what was typed; the rule is said instead.
            throw ToolException.Usage($"with --key-vault-credential, --kek-name needs a Key Vault key identifier (https://VAULT/keys/NAME[/VERSION], without user information, query or fragment) and --wrap-algorithm RSA-OAEP-256 (default) or RSA-OAEP {help}.");
        }
    }
}

using System.CommandLine;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>
/// The options of the DEK commands (create-dek, list-deks, rewrap-dek). The endpoint and <c>--key-vault-credential</c>
/// are <see cref="OptionCatalog"/>'s, shared with migrate; the rest say what they mean for a DEK.
/// </summary>
internal static class DekOptionCatalog
{
    public static readonly Option<string> Database = new("--database")
    {
        HelpName = "NAME",
        Description = "Database of the DEK container.",
        Required = true,
    };

    public static readonly Option<string> Container = new("--dek-container")
    {
        HelpName = "NAME",
        Description = "The DEK container (partition key /id). It must exist: a misspelt name is not created.",
        Required = true,
    };

    public static readonly Option<string> DekId = new("--dek-id")
    {
        HelpName = "ID",
        Description = "The data encryption key's id (documents name it in _ei._en).",
        Required = true,
    };

    public static readonly Option<string> KekFile = new("--kek-file")
    {
        HelpName = "PATH",
        Description = "Local key-encryption key: a JSON Web Key (RSA or oct) or an RSA PEM file (a private key to unwrap).",
    };

    public static readonly Option<string> KekName = new("--kek-name")
    {
        HelpName = "NAME|URI",
        Description = "The key-encryption key to wrap with, as the DEK document records it: with --kek-file, the name the "
            + "application's LocalKeyWrapProvider knows the key by; with --key-vault-credential, the Key Vault key "
            + "identifier (https://VAULT/keys/NAME[/VERSION]).",
        Required = true,
    };

    public static readonly Option<string> WrapAlgorithm = new("--wrap-algorithm")
    {
        HelpName = "ALGORITHM",
        Description = "The key-wrap algorithm: AES-KW or AES-KWP (an oct key), RSA-OAEP-256 or RSA-OAEP (an RSA key). "
            + "Default: RSA-OAEP-256 with --key-vault-credential; required with --kek-file.",
    };

    public static readonly Option<string> Algorithm = new("--algorithm")
    {
        HelpName = "ALGORITHM",
        Description = "The DEK's encryption algorithm. Default: MdeAeadAes256CbcHmac256Randomized (the only one new "
            + "documents are written with).",
    };

    public static readonly Option<string> NewKekFile = new("--new-kek-file")
    {
        HelpName = "PATH",
        Description = "The local key-encryption key file to wrap with, when it is not --kek-file (which unwraps the DEK "
            + "under the name its document records). Only with --kek-file.",
    };
}

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>Every option the tool knows, shared by the commands that take it.</summary>
internal static class OptionCatalog
{
    public static readonly OptionSpec KeyFile = new(
        "--key-file",
        "PATH",
        "File holding the raw 32-byte data encryption key as exactly 64 hexadecimal characters (whitespace and a "
        + "final newline around them are allowed). For development and support only: see 'Key files' in "
        + "'cosmos-encryption --help'.",
        Required: true);

    /// <summary><c>--key-file</c> where a wrapped DEK may be given instead (decrypt).</summary>
    public static readonly OptionSpec KeyFileOrWrappedKey = KeyFile with
    {
        Description = "File holding the raw 32-byte data encryption key as 64 hexadecimal characters (see --key-file "
            + "under 'Key files' in 'cosmos-encryption --help'). Instead of it: --dek-file or --dek-endpoint with "
            + "--kek-file or --key-vault-credential.",
        Required = false,
    };

    public static readonly OptionSpec DekFile = new(
        "--dek-file",
        "PATH",
        "The data encryption key's document as stored in the DEK container (JSON with 'wrappedDataEncryptionKey' "
        + "and 'keyWrapMetadata'); its id must be the one the document to decrypt names. Needs --kek-file or "
        + "--key-vault-credential.");

    public static readonly OptionSpec DekEndpoint = new(
        "--dek-endpoint",
        "URI",
        "Cosmos DB account endpoint to read the DEK document from (the id the document names), with --dek-database "
        + "and --dek-container; the account key comes from the COSMOS_KEY environment variable, or else "
        + "DefaultAzureCredential. Needs --kek-file or --key-vault-credential.");

    public static readonly OptionSpec DekDatabase = new(
        "--dek-database",
        "NAME",
        "Database of the DEK container (with --dek-endpoint).");

    public static readonly OptionSpec DekContainer = new(
        "--dek-container",
        "NAME",
        "DEK container (with --dek-endpoint); it is only read.");

    public static readonly OptionSpec KekFile = new(
        "--kek-file",
        "PATH",
        "Local key-encryption key that wrapped the DEK: a JSON Web Key (RSA or oct) or an RSA PEM file, used under "
        + "the key name the DEK document's metadata gives.");

    public static readonly OptionSpec KeyVaultCredential = new(
        "--key-vault-credential",
        "default",
        "Unwrap the DEK with the Azure Key Vault key its document names, authenticating with DefaultAzureCredential "
        + "(environment, managed identity, Azure CLI...). 'default' is the only value.");

    public static readonly OptionSpec DataEncryptionKeyId = new(
        "--dek-id",
        "ID",
        "Data encryption key id written to the document's metadata (_ei._en).",
        Required: true);

    public static readonly OptionSpec Path = new(
        "--path",
        "/NAME",
        "Top-level property to encrypt, as '/name'; repeat for more. '/id' and '/_ei' cannot be encrypted; "
        + "a property that is absent or null is skipped.",
        Required: true,
        Repeatable: true);

    public static readonly OptionSpec Processor = new(
        "--processor",
        "stream|newtonsoft",
        "JSON processor: 'stream' (default; System.Text.Json, untouched bytes copied verbatim) or 'newtonsoft' "
        + "(the baseline; the document is re-serialized).");

    public static readonly OptionSpec Input = new(
        "--in",
        "PATH",
        "Input document (UTF-8 JSON). Default: standard input.");

    public static readonly OptionSpec Output = new(
        "--out",
        "PATH",
        "Output file. Written to a temporary file in the same folder and renamed over PATH only when the "
        + "command succeeds; created readable by its owner only. Default: standard output, written only "
        + "after success.");
}

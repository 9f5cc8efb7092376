using System.CommandLine;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>
/// Every option the tool knows, shared by the commands that take it. Values are read as strings and checked by the
/// tool (<see cref="CommandLineParser"/>), so that every mistake gets the tool's own one-line message.
/// </summary>
internal static class OptionCatalog
{
    public static readonly Option<string> KeyFile = new("--key-file")
    {
        HelpName = "PATH",
        Description = "File holding the raw 32-byte data encryption key as exactly 64 hexadecimal characters (whitespace and a "
            + "final newline around them are allowed). For development and support only: see 'Key files' in "
            + "'cosmos-encryption --help'.",
        Required = true,
    };

    /// <summary><c>--key-file</c> where a wrapped DEK may be given instead (decrypt).</summary>
    public static readonly Option<string> KeyFileOrWrappedKey = new("--key-file")
    {
        HelpName = "PATH",
        Description = "File holding the raw 32-byte data encryption key as 64 hexadecimal characters (see --key-file "
            + "under 'Key files' in 'cosmos-encryption --help'). Instead of it: --dek-file or --dek-endpoint with "
            + "--kek-file or --key-vault-credential.",
    };

    public static readonly Option<string> DekFile = new("--dek-file")
    {
        HelpName = "PATH",
        Description = "The data encryption key's document as stored in the DEK container (JSON with 'wrappedDataEncryptionKey' "
            + "and 'keyWrapMetadata'); its id must be the one the document to decrypt names. Needs --kek-file or "
            + "--key-vault-credential.",
    };

    public static readonly Option<string> DekEndpoint = new("--dek-endpoint")
    {
        HelpName = "URI",
        Description = "Cosmos DB account endpoint to read the DEK document from (the id the document names), with --dek-database "
            + "and --dek-container; the account key comes from the COSMOS_KEY environment variable, or else "
            + "DefaultAzureCredential. Needs --kek-file or --key-vault-credential.",
    };

    public static readonly Option<string> DekDatabase = new("--dek-database")
    {
        HelpName = "NAME",
        Description = "Database of the DEK container (with --dek-endpoint).",
    };

    public static readonly Option<string> DekContainer = new("--dek-container")
    {
        HelpName = "NAME",
        Description = "DEK container (with --dek-endpoint); it is only read.",
    };

    public static readonly Option<string> KekFile = new("--kek-file")
    {
        HelpName = "PATH",
        Description = "Local key-encryption key that wrapped the DEK: a JSON Web Key (RSA or oct) or an RSA PEM file, used under "
            + "the key name the DEK document's metadata gives.",
    };

    public static readonly Option<string> KeyVaultCredential = new("--key-vault-credential")
    {
        HelpName = "default",
        Description = "Unwrap the DEK with the Azure Key Vault key its document names, authenticating with DefaultAzureCredential "
            + "(environment, managed identity, Azure CLI...). 'default' is the only value.",
    };

    public static readonly Option<string> DataEncryptionKeyId = new("--dek-id")
    {
        HelpName = "ID",
        Description = "Data encryption key id written to the document's metadata (_ei._en).",
        Required = true,
    };

    public static readonly Option<string[]> Path = new("--path")
    {
        HelpName = "/NAME",
        Description = "Top-level property to encrypt, as '/name'; repeat for more. '/id' and '/_ei' cannot be encrypted; "
            + "a property that is absent or null is skipped.",
        Required = true,
    };

    public static readonly Option<string> Processor = new("--processor")
    {
        HelpName = "stream|newtonsoft",
        Description = "JSON processor: 'stream' (default; System.Text.Json, untouched bytes copied verbatim) or 'newtonsoft' "
            + "(the baseline; the document is re-serialized).",
    };

    public static readonly Option<string> Input = new("--in")
    {
        HelpName = "PATH",
        Description = "Input document (UTF-8 JSON). Default: standard input.",
    };

    public static readonly Option<string> Output = new("--out")
    {
        HelpName = "PATH",
        Description = "Output file. Written to a temporary file in the same folder and renamed over PATH only when the "
            + "command succeeds; created readable by its owner only. Default: standard output, written only "
            + "after success.",
    };
}

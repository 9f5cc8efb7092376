using System.CommandLine;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary><c>decrypt</c>: its options, their binding, and the rule that it takes exactly one key source.</summary>
internal sealed class DecryptCommandLine : ToolCommand
{
    private readonly Option<string> _keyFile = ToolOptions.Text(
        "--key-file",
        "PATH",
        "File holding the raw 32-byte data encryption key as 64 hexadecimal characters (see --key-file under 'Key files' in "
        + "'cosmos-encryption --help'). Instead of it: --dek-file or --dek-endpoint with --kek-file or --key-vault-credential.");

    private readonly Option<string> _dekFile = ToolOptions.Text(
        "--dek-file",
        "PATH",
        "The data encryption key's document as stored in the DEK container (JSON with 'wrappedDataEncryptionKey' and "
        + "'keyWrapMetadata'); its id must be the one the document to decrypt names. Needs --kek-file or --key-vault-credential.");

    private readonly Option<Uri> _dekEndpoint = ToolOptions.HttpsUri(
        "--dek-endpoint",
        "Cosmos DB account endpoint to read the DEK document from (the id the document names), with --dek-database and "
        + "--dek-container; the account key comes from the COSMOS_KEY environment variable, or else DefaultAzureCredential. "
        + "Needs --kek-file or --key-vault-credential.");

    private readonly Option<string> _dekDatabase = ToolOptions.Text("--dek-database", "NAME", "Database of the DEK container (with --dek-endpoint).");
    private readonly Option<string> _dekContainer = ToolOptions.Text("--dek-container", "NAME", "DEK container (with --dek-endpoint); it is only read.");

    private readonly Option<string> _kekFile = ToolOptions.Text(
        "--kek-file",
        "PATH",
        "Local key-encryption key that wrapped the DEK: a JSON Web Key (RSA or oct) or an RSA PEM file, used under the key "
        + "name the DEK document's metadata gives.");

    private readonly Option<string> _keyVault = ToolOptions.KeyVaultCredential();
    private readonly Option<JsonProcessor> _processor = ToolOptions.Processor();
    private readonly Option<string> _input = ToolOptions.Input();
    private readonly Option<string> _output = ToolOptions.Output();

    public DecryptCommandLine()
        : base(
            CommandKind.Decrypt,
            "decrypt",
            "Decrypt a document (format 3, or legacy format 2).",
            "Decrypts the properties a document's metadata '_ei' lists and removes the metadata. The key is either the raw key in "
            + "a key file (used whatever DEK id the document names), or the DEK the document names, unwrapped from its DEK "
            + "document (a file, or read from the DEK container) with its key-encryption key (a local key file, or Azure Key "
            + "Vault). A document without metadata is written unchanged.")
    {
        AddOptions(_keyFile, _dekFile, _dekEndpoint, _dekDatabase, _dekContainer, _kekFile, _keyVault, _processor, _input, _output);
    }

    public override ToolArguments Bind(ParseResult result) => new()
    {
        Action = ToolAction.Run,
        Command = this,
        KeyFile = result.ValueOf(_keyFile),
        WrappedKey = BindKeySource(result),
        Processor = result.GetValue(_processor),
        InputPath = result.ValueOf(_input),
        OutputPath = result.ValueOf(_output),
    };

    // Exactly one key source: a raw key file, or a DEK document (file or endpoint) with exactly one key-encryption key.
    private WrappedKeyArguments? BindKeySource(ParseResult result)
    {
        string? dekFile = result.ValueOf(_dekFile);
        Uri? endpoint = result.ValueOf(_dekEndpoint);
        string? database = result.ValueOf(_dekDatabase);
        string? container = result.ValueOf(_dekContainer);
        string? kekFile = result.ValueOf(_kekFile);
        bool keyVault = result.IsGiven(_keyVault);
        if (result.IsGiven(_keyFile))
        {
            if (dekFile is not null || endpoint is not null || database is not null || container is not null || kekFile is not null || keyVault)
            {
                throw ToolException.Usage($"--key-file is a raw key: it cannot be combined with --dek-* or key-encryption key options {SeeHelp}.");
            }

            return null;
        }

        if (dekFile is null && endpoint is null)
        {
            throw ToolException.Usage($"'{Name}' needs a key: --key-file PATH, or --dek-file PATH or --dek-endpoint URI with --kek-file PATH or --key-vault-credential default {SeeHelp}.");
        }

        if (dekFile is not null && endpoint is not null)
        {
            throw ToolException.Usage($"give the DEK document either as --dek-file or through --dek-endpoint, not both {SeeHelp}.");
        }

        if (endpoint is not null && (database is null || container is null))
        {
            throw ToolException.Usage($"--dek-endpoint needs --dek-database NAME and --dek-container NAME {SeeHelp}.");
        }

        if (endpoint is null && (database is not null || container is not null))
        {
            throw ToolException.Usage($"--dek-database and --dek-container go with --dek-endpoint {SeeHelp}.");
        }

        RequireOneKeyEncryptionKey(kekFile, keyVault);
        return new WrappedKeyArguments { DekFile = dekFile, Endpoint = endpoint, Database = database, Container = container, KekFile = kekFile };
    }
}

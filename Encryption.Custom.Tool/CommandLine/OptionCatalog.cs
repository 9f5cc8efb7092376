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

    // migrate and status: the container on an endpoint.
    public static readonly Option<string> Endpoint = new("--endpoint")
    {
        HelpName = "URI",
        Description = "Cosmos DB account endpoint (https). The account key comes from the COSMOS_KEY environment variable, "
            + "or else DefaultAzureCredential; a loopback endpoint (a local emulator) may have a self-signed certificate.",
        Required = true,
    };

    public static readonly Option<string> Database = new("--database")
    {
        HelpName = "NAME",
        Description = "Database of the container.",
        Required = true,
    };

    public static readonly Option<string> Container = new("--container")
    {
        HelpName = "NAME",
        Description = "The container whose documents are migrated or counted.",
        Required = true,
    };

    public static readonly Option<string> LeaseContainer = new("--lease-container")
    {
        HelpName = "NAME",
        Description = "The change feed processor's lease container in the same database (partition key /id; created when "
            + "missing). It holds the job's checkpoints: a rerun with the same --job-name resumes from them.",
        Required = true,
    };

    public static readonly Option<string> MigrationDekDatabase = new("--dek-database")
    {
        HelpName = "NAME",
        Description = "Database of the DEK container. Default: --database.",
    };

    public static readonly Option<string> MigrationDekContainer = new("--dek-container")
    {
        HelpName = "NAME",
        Description = "The DEK container holding the target DEK and the accepted source DEKs (only read).",
        Required = true,
    };

    public static readonly Option<string> MigrationKekFile = new("--kek-file")
    {
        HelpName = "PATH",
        Description = "Local key-encryption key that wrapped the DEKs: a JSON Web Key (RSA or oct) or an RSA PEM file, used "
            + "under every key name the DEK documents' metadata gives.",
    };

    public static readonly Option<string> TargetDekId = new("--dek-id")
    {
        HelpName = "ID",
        Description = "The target policy's data encryption key: documents end up encrypted with it (with --path).",
    };

    public static readonly Option<string[]> TargetPath = new("--path")
    {
        HelpName = "/NAME",
        Description = "A top-level property the target policy encrypts, as '/name'; repeat for more (with --dek-id).",
    };

    public static readonly Option<bool> Decrypt = new("--decrypt")
    {
        Arity = ArgumentArity.Zero,
        Description = "Target state: no encryption. Every document is decrypted (instead of --dek-id and --path).",
    };

    public static readonly Option<string[]> AcceptDek = new("--accept-dek")
    {
        HelpName = "ID",
        Description = "A source DEK documents may be encrypted with (besides the target DEK); repeat for more. A document "
            + "under any other DEK is reported and left as it was.",
    };

    public static readonly Option<string> Budget = new("--budget")
    {
        HelpName = "RU/S",
        Description = "Throughput budget in request units per second, counted from the responses' request charge. Default: "
            + "none (the service's 429 answers still slow the job down).",
    };

    public static readonly Option<string> Parallelism = new("--parallelism")
    {
        HelpName = "N",
        Description = "Documents rewritten at once. Default: 8.",
    };

    public static readonly Option<string> BatchSize = new("--batch-size")
    {
        HelpName = "N",
        Description = "Change feed page size, and so the work between two checkpoints. Default: 100.",
    };

    public static readonly Option<bool> Bulk = new("--bulk")
    {
        Arity = ArgumentArity.Zero,
        Description = "Send a page's rewrites together through the SDK's bulk execution.",
    };

    public static readonly Option<string> JobName = new("--job-name")
    {
        HelpName = "NAME",
        Description = "Names the job's leases (and checkpoints) in the lease container. Default: encryption-migration. Use a "
            + "new name for a new migration of the same container.",
    };

    public static readonly Option<string[]> DeterministicPath = new("--deterministic-path")
    {
        HelpName = "/NAME",
        Description = "A top-level property the target policy encrypts deterministically (equality queries; reveals which "
            + "documents share a value), as '/name'; repeat for more (with --dek-id).",
    };

    public static readonly Option<string[]> DecryptPath = new("--decrypt-path")
    {
        HelpName = "/NAME",
        Description = "Allows the run to decrypt this path in the documents that encrypt it (the target does not list it, or "
            + "is --decrypt); repeat for each. Without it such a run is refused before its first write.",
    };

    public static readonly Option<string[]> ChangeTypePath = new("--change-type-path")
    {
        HelpName = "/NAME",
        Description = "Allows the run to change this path between deterministic and randomized encryption in the documents "
            + "that hold it the other way; repeat for each. Without it such a run is refused before its first write.",
    };

    public static readonly Option<bool> DryRun = new("--dry-run")
    {
        Arity = ArgumentArity.Zero,
        Description = "Read the container, prove the keys, print what the run would do to each DEK and path, and stop "
            + "without writing anything (the lease container is not created).",
    };

    public static readonly Option<string> FailuresFile = new("--failures-file")
    {
        HelpName = "PATH",
        Description = "Write every 'failed:' line to this file (standard output shows the first 20 and a count).",
    };

    public static readonly Option<string> StatusDekId = new("--dek-id")
    {
        HelpName = "ID",
        Description = "The target policy's data encryption key (with --path), to count documents outside the target state, "
            + "with plaintext in its paths or with other paths. Without it the target is 'no encryption'.",
    };

    public static readonly Option<string[]> StatusPath = new("--path")
    {
        HelpName = "/NAME",
        Description = "A top-level property of the target policy, as '/name'; repeat for more (with --dek-id).",
    };
}

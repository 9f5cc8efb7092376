using System.CommandLine;
using System.CommandLine.Help;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>The catalogue of commands, and the System.CommandLine root that parses them.</summary>
internal static class CommandCatalog
{
    public static readonly ToolCommand Encrypt = new(
        CommandKind.Encrypt,
        "encrypt",
        "Encrypt top-level properties of a JSON document (format 3).",
        "Encrypts the listed top-level properties of a JSON document with the key in the key file and appends "
        + "the encryption metadata '_ei' (format 3, MdeAeadAes256CbcHmac256Randomized), exactly as the library "
        + "does before a write to Cosmos DB.",
        [OptionCatalog.KeyFile, OptionCatalog.DataEncryptionKeyId, OptionCatalog.Path, OptionCatalog.Processor, OptionCatalog.Input, OptionCatalog.Output]);

    public static readonly ToolCommand Decrypt = new(
        CommandKind.Decrypt,
        "decrypt",
        "Decrypt a document (format 3, or legacy format 2).",
        "Decrypts the properties a document's metadata '_ei' lists and removes the metadata. The key is either "
        + "the raw key in a key file (used whatever DEK id the document names), or the DEK the document names, "
        + "unwrapped from its DEK document (a file, or read from the DEK container) with its key-encryption key "
        + "(a local key file, or Azure Key Vault). A document without metadata is written unchanged.",
        [
            OptionCatalog.KeyFileOrWrappedKey, OptionCatalog.DekFile, OptionCatalog.DekEndpoint, OptionCatalog.DekDatabase,
            OptionCatalog.DekContainer, OptionCatalog.KekFile, OptionCatalog.KeyVaultCredential,
            OptionCatalog.Processor, OptionCatalog.Input, OptionCatalog.Output,
        ]);

    public static readonly ToolCommand Inspect = new(
        CommandKind.Inspect,
        "inspect",
        "Print a document's encryption metadata; needs no key.",
        "Prints the encryption metadata of a document as one line of JSON: "
        + "{\"format\":3,\"algorithm\":\"...\",\"dekId\":\"...\",\"paths\":[...]} (the paths its '_ep' lists), or "
        + "{\"encrypted\":false} for a document without metadata. Reads no key and decrypts nothing.",
        [OptionCatalog.Input]);

    public static readonly ToolCommand Migrate = new(
        CommandKind.Migrate,
        "migrate",
        "Bring a container's documents to a target encryption state, in place.",
        "Runs the library's migration job (a change feed processor instance) until every document of the container "
        + "is in the target state: encrypted with --dek-id in the --path properties, or decrypted (--decrypt). "
        + "Documents are decrypted with the DEK they name (the target DEK or an --accept-dek one, unwrapped from the "
        + "DEK container with --kek-file or --key-vault-credential) and replaced on the condition of their ETag, so "
        + "a concurrent write is never overwritten. Ctrl+C stops cleanly; the same command resumes from the "
        + "checkpoints. Before the first write every DEK is unwrapped (a key that cannot be is exit code 3) and the "
        + "container is read once and compared with the target: a run that would decrypt a path or change its "
        + "encryption type is refused (exit code 2) unless each such path is named with --decrypt-path or "
        + "--change-type-path; --dry-run prints the comparison and stops. Progress goes to standard output (a bar on "
        + "a terminal, lines otherwise); documents that cannot be migrated are listed (id, partition key, reason) and "
        + "left as they were.",
        [
            OptionCatalog.Endpoint, OptionCatalog.Database, OptionCatalog.Container, OptionCatalog.LeaseContainer,
            OptionCatalog.MigrationDekDatabase, OptionCatalog.MigrationDekContainer, OptionCatalog.MigrationKekFile,
            OptionCatalog.KeyVaultCredential, OptionCatalog.TargetDekId, OptionCatalog.TargetPath, OptionCatalog.DeterministicPath,
            OptionCatalog.Decrypt, OptionCatalog.AcceptDek, OptionCatalog.DecryptPath, OptionCatalog.ChangeTypePath,
            OptionCatalog.DryRun, OptionCatalog.Budget, OptionCatalog.Parallelism, OptionCatalog.BatchSize,
            OptionCatalog.Bulk, OptionCatalog.JobName, OptionCatalog.Processor, OptionCatalog.FailuresFile,
        ]);

    public static readonly ToolCommand Status = new(
        CommandKind.Status,
        "status",
        "Count a container's documents per DEK and against a target policy; needs no key.",
        "Reads every document's encryption metadata once (about one request unit per kilobyte stored) and prints one "
        + "line of JSON: the documents in total and per DEK id, without encryption, with plaintext in a path of the "
        + "target policy, with paths other than the policy's, unreadable, in and outside the target state. A DEK "
        + "with no documents can be retired. Decrypts nothing.",
        [OptionCatalog.Endpoint, OptionCatalog.Database, OptionCatalog.Container, OptionCatalog.StatusDekId, OptionCatalog.StatusPath]);

    public static readonly ToolCommand CreateDek = new(
        CommandKind.CreateDek,
        "create-dek",
        "Create a data encryption key in the DEK container, wrapped by a key-encryption key.",
        "Generates a new 32-byte data encryption key, wraps it with the key-encryption key --kek-name names (a local key "
        + "file, or Azure Key Vault), checks that the wrapped key unwraps to the same bytes, and stores its document in "
        + "the DEK container, exactly as the library's DataEncryptionKeyContainer does. A DEK with that id is never "
        + "replaced: the command is refused (exit code 1, AlreadyExists). Prints the new DEK as one line of JSON (as "
        + "list-deks does; never key bytes).",
        [
            OptionCatalog.Endpoint, DekOptionCatalog.Database, DekOptionCatalog.Container, DekOptionCatalog.DekId,
            DekOptionCatalog.KekFile, OptionCatalog.KeyVaultCredential, DekOptionCatalog.KekName, DekOptionCatalog.WrapAlgorithm,
            DekOptionCatalog.Algorithm,
        ]);

    public static readonly ToolCommand ListDeks = new(
        CommandKind.ListDeks,
        "list-deks",
        "List the DEKs of the DEK container; needs no key.",
        "Prints one line of JSON per DEK document of the DEK container, ordered by id: "
        + "{\"id\":\"...\",\"algorithm\":\"...\",\"kek\":{\"type\":\"...\",\"name\":\"...\",\"value\":\"...\",\"algorithm\":\"...\"},"
        + "\"created\":\"...\",\"modified\":\"...\"}. The wrapped key is never printed, and nothing is unwrapped. "
        + "A document that is not a DEK document fails the listing (exit code 3).",
        [OptionCatalog.Endpoint, DekOptionCatalog.Database, DekOptionCatalog.Container]);

    public static readonly ToolCommand RewrapDek = new(
        CommandKind.RewrapDek,
        "rewrap-dek",
        "Wrap an existing DEK with another key-encryption key (KEK rotation).",
        "Unwraps the DEK with the key-encryption key its document names (--kek-file, registered under that name, or Key "
        + "Vault), wraps it with the one --kek-name names (from --new-kek-file when given, else --kek-file, or Key "
        + "Vault), checks the new wrapping and replaces the document on the condition of its ETag. The raw key does not "
        + "change, so documents encrypted with the DEK stay readable. Prints the rewrapped DEK as one line of JSON.",
        [
            OptionCatalog.Endpoint, DekOptionCatalog.Database, DekOptionCatalog.Container, DekOptionCatalog.DekId,
            DekOptionCatalog.KekFile, OptionCatalog.KeyVaultCredential, DekOptionCatalog.KekName, DekOptionCatalog.WrapAlgorithm,
            DekOptionCatalog.NewKekFile,
        ]);

    public static IReadOnlyList<ToolCommand> All { get; } = [Encrypt, Decrypt, Inspect, Migrate, Status, CreateDek, ListDeks, RewrapDek];

    /// <summary>
    /// The root: the commands, <c>--help</c> (also <c>-h</c>, <c>-?</c>; inherited by every command) and
    /// <c>--version</c>. The library's default help aliases add the Windows-style <c>/h</c> and <c>/?</c>, and its
    /// default <c>[suggest]</c> directive would read a first argument in brackets as a request for completions:
    /// neither is part of this tool's command line.
    /// </summary>
    public static RootCommand Root { get; } = CreateRoot();

    /// <summary>Every option name the root and the commands know (a value equal to one is a forgotten value).</summary>
    public static bool IsOptionName(string token)
    {
        if (token is "--help" or "-h" or "-?" or "--version")
        {
            return true;
        }

        foreach (ToolCommand command in All)
        {
            if (command.FindOption(token) is not null)
            {
                return true;
            }
        }

        return false;
    }

    private static RootCommand CreateRoot()
    {
        var root = new RootCommand("cosmos-encryption");
        root.Directives.Clear();
        for (int i = root.Options.Count - 1; i >= 0; i--)
        {
            if (root.Options[i] is HelpOption)
            {
                root.Options.RemoveAt(i);
            }
        }

        root.Options.Add(new HelpOption("--help", "-h", "-?"));
        foreach (ToolCommand command in All)
        {
            root.Subcommands.Add(command);
        }

        return root;
    }

    /// <summary>The command with this exact name, or <see langword="null"/>.</summary>
    public static ToolCommand? Find(string name)
    {
        foreach (ToolCommand command in All)
        {
            if (string.Equals(command.Name, name, StringComparison.Ordinal))
            {
                return command;
            }
        }

        return null;
    }
}

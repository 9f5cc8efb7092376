namespace Encryption.Custom.Tool.CommandLine;

/// <summary>The catalogue of commands.</summary>
internal static class CommandCatalog
{
    public static readonly CommandSpec Encrypt = new(
        CommandKind.Encrypt,
        "encrypt",
        "Encrypt top-level properties of a JSON document (format 3).",
        "Encrypts the listed top-level properties of a JSON document with the key in the key file and appends "
        + "the encryption metadata '_ei' (format 3, MdeAeadAes256CbcHmac256Randomized), exactly as the library "
        + "does before a write to Cosmos DB.",
        [OptionCatalog.KeyFile, OptionCatalog.DataEncryptionKeyId, OptionCatalog.Path, OptionCatalog.Processor, OptionCatalog.Input, OptionCatalog.Output]);

    public static readonly CommandSpec Decrypt = new(
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

    public static readonly CommandSpec Inspect = new(
        CommandKind.Inspect,
        "inspect",
        "Print a document's encryption metadata; needs no key.",
        "Prints the encryption metadata of a document as one line of JSON: "
        + "{\"format\":3,\"algorithm\":\"...\",\"dekId\":\"...\",\"paths\":[...]} (the paths its '_ep' lists), or "
        + "{\"encrypted\":false} for a document without metadata. Reads no key and decrypts nothing.",
        [OptionCatalog.Input]);

    public static IReadOnlyList<CommandSpec> All { get; } = [Encrypt, Decrypt, Inspect];

    /// <summary>The command with this exact name, or <see langword="null"/>.</summary>
    public static CommandSpec? Find(string name)
    {
        foreach (CommandSpec command in All)
        {
            if (string.Equals(command.Name, name, StringComparison.Ordinal))
            {
                return command;
            }
        }

        return null;
    }
}

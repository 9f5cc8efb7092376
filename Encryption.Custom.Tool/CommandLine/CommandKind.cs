namespace Encryption.Custom.Tool.CommandLine;

/// <summary>The tool's commands.</summary>
internal enum CommandKind
{
    /// <summary>Encrypt chosen top-level properties of a document.</summary>
    Encrypt,

    /// <summary>Decrypt a document.</summary>
    Decrypt,

    /// <summary>Print a document's encryption metadata without a key.</summary>
    Inspect,

    /// <summary>Bring a container's documents to a target encryption state.</summary>
    Migrate,

    /// <summary>Count a container's documents against a target state.</summary>
    Status,

    /// <summary>Create a DEK in the DEK container, wrapped by a key-encryption key.</summary>
    CreateDek,

    /// <summary>List the DEKs of the DEK container (never their key bytes).</summary>
    ListDeks,

    /// <summary>Wrap an existing DEK with another key-encryption key.</summary>
    RewrapDek,
}

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
}

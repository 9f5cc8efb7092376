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

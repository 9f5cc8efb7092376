using System.CommandLine;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary><c>encrypt</c>: its options and their binding.</summary>
internal sealed class EncryptCommandLine : ToolCommand
{
    private readonly Option<string> _keyFile = ToolOptions.Text(
        "--key-file",
        "PATH",
        "File holding the raw 32-byte data encryption key as exactly 64 hexadecimal characters (whitespace and a final newline "
        + "around them are allowed). For development and support only: see 'Key files' in 'cosmos-encryption --help'.",
        required: true);

    private readonly Option<string> _dekId = ToolOptions.Text("--dek-id", "ID", "Data encryption key id written to the document's metadata (_ei._en).", required: true);

    private readonly Option<string[]> _paths = ToolOptions.Repeated(
        "--path",
        "/NAME",
        "Top-level property to encrypt, as '/name'; repeat for more. '/id' and '/_ei' cannot be encrypted; a property that is "
        + "absent or null is skipped.",
        required: true);

    private readonly Option<JsonProcessor> _processor = ToolOptions.Processor();
    private readonly Option<string> _input = ToolOptions.Input();
    private readonly Option<string> _output = ToolOptions.Output();

    public EncryptCommandLine()
        : base(
            CommandKind.Encrypt,
            "encrypt",
            "Encrypt top-level properties of a JSON document (format 3).",
            "Encrypts the listed top-level properties of a JSON document with the key in the key file and appends the encryption "
            + "metadata '_ei' (format 3, MdeAeadAes256CbcHmac256Randomized), exactly as the library does before a write to "
            + "Cosmos DB.")
    {
        AddOptions(_keyFile, _dekId, _paths, _processor, _input, _output);
    }

    public override ToolArguments Bind(ParseResult result) => new()
    {
        Action = ToolAction.Run,
        Command = this,
        KeyFile = result.ValueOf(_keyFile),
        DataEncryptionKeyId = result.ValueOf(_dekId),
        Paths = result.ValueOf(_paths) ?? [],
        Processor = result.GetValue(_processor),
        InputPath = result.ValueOf(_input),
        OutputPath = result.ValueOf(_output),
    };
}

using System.CommandLine;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary><c>inspect</c>: its one option and its binding.</summary>
internal sealed class InspectCommandLine : ToolCommand
{
    private readonly Option<string> _input = ToolOptions.Input();

    public InspectCommandLine()
        : base(
            CommandKind.Inspect,
            "inspect",
            "Print a document's encryption metadata; needs no key.",
            "Prints the encryption metadata of a document as one line of JSON: "
            + "{\"format\":3,\"algorithm\":\"...\",\"dekId\":\"...\",\"paths\":[...]} (the paths its '_ep' lists), or "
            + "{\"encrypted\":false} for a document without metadata. Reads no key and decrypts nothing.")
    {
        AddOptions(_input);
    }

    public override ToolArguments Bind(ParseResult result) =>
        new() { Action = ToolAction.Run, Command = this, InputPath = result.ValueOf(_input) };
}

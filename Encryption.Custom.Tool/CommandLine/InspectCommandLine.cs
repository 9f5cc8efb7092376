using System.CommandLine;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary><c>inspect</c>: its options and their binding.</summary>
internal sealed class InspectCommandLine : ToolCommand
{
    private readonly Option<string> _input = ToolOptions.Input();
    private readonly Option<JsonProcessor> _processor = ToolOptions.Processor();

    public InspectCommandLine()
        : base(
            CommandKind.Inspect,
            "inspect",
            "Print a document's encryption metadata; needs no key.",
            "Prints the encryption metadata of a document as one line of JSON: "
            + "{\"format\":3,\"algorithm\":\"...\",\"dekId\":\"...\",\"paths\":[...]} (the paths its '_ep' lists), or "
            + "{\"encrypted\":false} for a document without metadata; format 101 adds \"bound\". Reads no key and decrypts nothing; "
            + "--processor chooses whose reader judges the document (the same rules decrypt applies).")
    {
        AddOptions(_input, _processor);
    }

    public override ToolArguments Bind(ParseResult result) =>
        new() { Action = ToolAction.Run, Command = this, InputPath = result.ValueOf(_input), Processor = result.GetValue(_processor) };
}

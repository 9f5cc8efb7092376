using System.CommandLine;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary><c>list-deks</c>: the DEK container only.</summary>
internal sealed class ListDeksCommandLine : DekCommandLine
{
    public ListDeksCommandLine()
        : base(
            CommandKind.ListDeks,
            "list-deks",
            "List the DEKs of the DEK container; needs no key.",
            "Prints one line of JSON per DEK document of the DEK container, ordered by id: "
            + "{\"id\":\"...\",\"algorithm\":\"...\",\"kek\":{\"type\":\"...\",\"name\":\"...\",\"value\":\"...\",\"algorithm\":\"...\"},"
            + "\"created\":\"...\",\"modified\":\"...\"}. The wrapped key is never printed, and nothing is unwrapped. A document "
            + "that is not a DEK document fails the listing (exit code 3).")
    {
        AddOptions(EndpointOption, DatabaseOption, ContainerOption);
    }

    public override ToolArguments Bind(ParseResult result) => new() { Action = ToolAction.Run, Command = this, Deks = BindContainer(result) };
}

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>One option of a command: what the parser accepts and what the help text says.</summary>
/// <param name="Name">The option as typed, for example <c>--key-file</c>.</param>
/// <param name="ValueName">The placeholder of its value in the help text.</param>
/// <param name="Description">One sentence or two for the help text.</param>
/// <param name="Required">Whether the command fails without it.</param>
/// <param name="Repeatable">Whether it may be given more than once.</param>
internal sealed record OptionSpec(string Name, string ValueName, string Description, bool Required = false, bool Repeatable = false);

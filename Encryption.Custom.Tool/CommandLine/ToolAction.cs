namespace Encryption.Custom.Tool.CommandLine;

/// <summary>What a command line asks for.</summary>
internal enum ToolAction
{
    /// <summary>Run a command.</summary>
    Run,

    /// <summary>Print the help of the tool, or of one command.</summary>
    ShowHelp,

    /// <summary>Print the tool's version.</summary>
    ShowVersion,
}

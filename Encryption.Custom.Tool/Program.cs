using Encryption.Custom.Tool.Documents;

namespace Encryption.Custom.Tool;

/// <summary>The process entry point: the real console for <see cref="ToolApplication"/>.</summary>
internal static class Program
{
    public static async Task<int> Main(string[] args)
    {
        // An interrupted run leaves no temporary output file behind (Ctrl+C, SIGTERM); the process still ends at once.
        Console.CancelKeyPress += (_, _) => DocumentOutput.DeletePendingFiles();
        AppDomain.CurrentDomain.ProcessExit += (_, _) => DocumentOutput.DeletePendingFiles();

        using Stream standardInput = Console.OpenStandardInput();
        using Stream standardOutput = Console.OpenStandardOutput();
        return await ToolApplication.RunAsync(args, new ToolConsole(standardInput, standardOutput, Console.Error, IsTerminal: !Console.IsOutputRedirected));
    }
}

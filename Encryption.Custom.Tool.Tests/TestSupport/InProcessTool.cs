using System.Text;

namespace Encryption.Custom.Tool.Tests.TestSupport;

/// <summary>Runs the tool's entry point in this process with in-memory standard streams.</summary>
internal static class InProcessTool
{
    public static Task<ToolRun> RunAsync(params string[] args) => RunWithInputAsync([], args);

    public static Task<ToolRun> RunWithInputAsync(string stdin, params string[] args) => RunWithInputAsync(Encoding.UTF8.GetBytes(stdin), args);

    public static async Task<ToolRun> RunWithInputAsync(byte[] stdin, params string[] args)
    {
        using var input = new MemoryStream(stdin, writable: false);
        using var output = new MemoryStream();
        using var error = new StringWriter { NewLine = "\n" };
        int exitCode = await ToolApplication.RunAsync(args, new ToolConsole(input, output, error), TestContext.Current.CancellationToken);
        return new ToolRun(exitCode, output.ToArray(), error.ToString());
    }
}

using System.Diagnostics;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Packaging;

/// <summary>Runs one of the repository's eng/*.sh scripts with bash and fails the test, with its output, unless it exits 0.</summary>
internal static class EngScript
{
    public static async Task RunAsync(string script, params string[] arguments)
    {
        var start = new ProcessStartInfo("bash", [RepositoryFiles.Path("eng", script), .. arguments])
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        using Process process = Process.Start(start) ?? throw new InvalidOperationException("bash did not start.");
        Task<string> output = process.StandardOutput.ReadToEndAsync(TestContext.Current.CancellationToken);
        Task<string> error = process.StandardError.ReadToEndAsync(TestContext.Current.CancellationToken);
        await process.WaitForExitAsync(TestContext.Current.CancellationToken);
        Assert.True(process.ExitCode == 0, $"{script} exited {process.ExitCode}: {await output}{await error}");
    }
}

using System.Diagnostics;

namespace Encryption.Custom.Tool.Tests.TestSupport;

/// <summary>Runs a program as a child process, feeding standard input and capturing both outputs.</summary>
internal static class ProcessRunner
{
    public static async Task<ToolRun> RunAsync(
        string fileName,
        IEnumerable<string> args,
        byte[]? stdin = null,
        TimeSpan? timeout = null,
        string? workingDirectory = null,
        IReadOnlyDictionary<string, string>? environment = null)
    {
        var start = new ProcessStartInfo(fileName)
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory ?? Environment.CurrentDirectory,
        };
        foreach (string arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        // Quiet, reproducible runs of the dotnet CLI and the tool alike.
        start.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        start.Environment["DOTNET_NOLOGO"] = "1";
        start.Environment["DOTNET_SKIP_FIRST_TIME_EXPERIENCE"] = "1";
        foreach ((string name, string value) in environment ?? new Dictionary<string, string>())
        {
            start.Environment[name] = value;
        }

        using var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {fileName}.");
        using var cancel = new CancellationTokenSource(timeout ?? TimeSpan.FromMinutes(2));
        try
        {
            using var output = new MemoryStream();
            Task copyOutput = process.StandardOutput.BaseStream.CopyToAsync(output, cancel.Token);
            Task<string> readError = process.StandardError.ReadToEndAsync(cancel.Token);
            if (stdin is { Length: > 0 })
            {
                await process.StandardInput.BaseStream.WriteAsync(stdin, cancel.Token);
            }

            process.StandardInput.Close();
            await Task.WhenAll(copyOutput, readError);
            await process.WaitForExitAsync(cancel.Token);
            return new ToolRun(process.ExitCode, output.ToArray(), await readError);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"{fileName} {string.Join(' ', args)} did not finish in time.");
        }
    }

    /// <summary>The dotnet host running these tests (so that child processes use the same SDK and runtime).</summary>
    public static string DotnetHost =>
        Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host && File.Exists(host) ? host : "dotnet";
}

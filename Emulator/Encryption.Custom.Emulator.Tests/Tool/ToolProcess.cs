using System.Diagnostics;
using System.Text;

namespace Encryption.Custom.Emulator.Tests.Tool;

/// <summary>
/// The built <c>cosmos-encryption</c> tool as a child process (<c>dotnet Encryption.Custom.Tool.dll …</c>), with the
/// endpoint's key in <c>COSMOS_KEY</c> as an operator would pass it. Standard output is read line by line while the
/// process runs, so a test can act on a progress line (kill it).
/// </summary>
internal sealed class ToolProcess : IDisposable
{
    private static readonly string s_toolPath = Path.Combine(AppContext.BaseDirectory, "Encryption.Custom.Tool.dll");

    private readonly Process _process;
    private readonly List<string> _lines = [];
    private readonly Lock _lock = new();
    private readonly Task<string> _error;
    private readonly Task _output;
    private readonly Action<string>? _onLine;

    private ToolProcess(CosmosEndpoint endpoint, IEnumerable<string> args, byte[]? stdin, Action<string>? onLine)
    {
        var start = new ProcessStartInfo(DotnetHost)
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            StandardOutputEncoding = Encoding.UTF8,
        };
        start.ArgumentList.Add(s_toolPath);
        foreach (string arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        start.Environment["COSMOS_KEY"] = endpoint.Key;
        start.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        _onLine = onLine;
        _process = Process.Start(start) ?? throw new InvalidOperationException("The tool did not start.");
        _error = _process.StandardError.ReadToEndAsync();
        _output = ReadOutputAsync();
        if (stdin is { Length: > 0 })
        {
            _process.StandardInput.BaseStream.Write(stdin);
        }

        _process.StandardInput.Close();
    }

    public int Id => _process.Id;

    /// <summary>Standard output's lines so far.</summary>
    public IReadOnlyList<string> Lines
    {
        get
        {
            lock (_lock)
            {
                return [.. _lines];
            }
        }
    }

    /// <summary>Starts the tool; <paramref name="onLine"/> sees every line of standard output as it comes.</summary>
    public static ToolProcess Start(CosmosEndpoint endpoint, IEnumerable<string> args, Action<string>? onLine = null, byte[]? stdin = null) =>
        new(endpoint, args, stdin, onLine);

    /// <summary>Runs the tool to its end (bounded), returning its exit code, output lines and standard error.</summary>
    public static async Task<ToolResult> RunAsync(CosmosEndpoint endpoint, IEnumerable<string> args, TimeSpan bound, byte[]? stdin = null)
    {
        using ToolProcess process = Start(endpoint, args, stdin: stdin);
        return await process.WaitAsync(bound);
    }

    /// <summary>Waits for the end (killing the process and failing after <paramref name="bound"/>).</summary>
    public async Task<ToolResult> WaitAsync(TimeSpan bound)
    {
        using var timeout = new CancellationTokenSource(bound);
        try
        {
            await _process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            _process.Kill(entireProcessTree: true);
            throw new TimeoutException($"The tool did not finish within {bound}; output so far:\n{string.Join('\n', Lines)}");
        }

        await _output;
        return new ToolResult(_process.ExitCode, Lines, await _error);
    }

    /// <summary>SIGKILL: the process gets no chance to clean up or checkpoint anything more.</summary>
    public void Kill() => _process.Kill(entireProcessTree: true);

    public void Dispose()
    {
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
        }

        _process.Dispose();
    }

    private async Task ReadOutputAsync()
    {
        while (await _process.StandardOutput.ReadLineAsync() is { } line)
        {
            lock (_lock)
            {
                _lines.Add(line);
            }

            _onLine?.Invoke(line);
        }
    }

    // The dotnet host running these tests, so that the child uses the same runtime.
    private static string DotnetHost =>
        Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host && File.Exists(host) ? host : "dotnet";
}

/// <summary>What one run of the tool produced.</summary>
internal sealed record ToolResult(int ExitCode, IReadOnlyList<string> Lines, string Error)
{
    public string Output => string.Join('\n', Lines);

    /// <summary>Asserts exit code 0 and an empty standard error.</summary>
    public ToolResult AssertSuccess()
    {
        Assert.True(ExitCode == 0, $"Exit code {ExitCode}; stderr: {Error}; stdout:\n{Output}");
        Assert.Equal(string.Empty, Error);
        return this;
    }

    /// <summary>Asserts the exit code and exactly one line on standard error starting with the tool's prefix and <paramref name="kind"/>.</summary>
    public string AssertFailure(int exitCode, string kind)
    {
        Assert.True(ExitCode == exitCode, $"Exit code {ExitCode}, expected {exitCode}; stderr: {Error}; stdout:\n{Output}");
        string line = Assert.Single(Error.TrimEnd('\n').Split('\n'));
        Assert.StartsWith("cosmos-encryption: " + kind, line, StringComparison.Ordinal);
        return line;
    }

    /// <summary>The numbers of the last line starting with <paramref name="label"/>: (<c>seen</c> → 120, …).</summary>
    public IReadOnlyDictionary<string, string> Last(string label) =>
        ProgressLine.Parse(Lines.Last(l => l.StartsWith(label + ":", StringComparison.Ordinal)));
}

/// <summary>Reads migrate's <c>label: key=value …</c> lines.</summary>
internal static class ProgressLine
{
    public static Dictionary<string, string> Parse(string line) =>
        line[(line.IndexOf(':', StringComparison.Ordinal) + 1)..]
            .Split(' ', StringSplitOptions.RemoveEmptyEntries)
            .Select(pair => pair.Split('=', 2))
            .Where(pair => pair.Length == 2)
            .ToDictionary(pair => pair[0], pair => pair[1]);

    public static long Count(IReadOnlyDictionary<string, string> values, string name) =>
        long.Parse(values[name], System.Globalization.CultureInfo.InvariantCulture);
}

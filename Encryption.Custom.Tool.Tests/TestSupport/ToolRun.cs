using System.Text;

namespace Encryption.Custom.Tool.Tests.TestSupport;

/// <summary>What one run of the tool produced.</summary>
/// <param name="ExitCode">The exit code.</param>
/// <param name="Output">Everything written to standard output.</param>
/// <param name="Error">Everything written to standard error.</param>
internal sealed record ToolRun(int ExitCode, byte[] Output, string Error)
{
    public string OutputText => Encoding.UTF8.GetString(Output);

    /// <summary>The lines of standard error (a trailing newline ends the last line, it does not start another).</summary>
    public string[] ErrorLines => Error.Length == 0
        ? []
        : Error.TrimEnd('\n').Replace("\r\n", "\n", StringComparison.Ordinal).Split('\n');

    /// <summary>Asserts a successful run: exit code 0 and nothing on standard error.</summary>
    public ToolRun AssertSuccess()
    {
        Assert.True(ExitCode == 0, $"Exit code {ExitCode}; stderr: {Error}");
        Assert.Equal(string.Empty, Error);
        return this;
    }

    /// <summary>
    /// Asserts a failed run as the tool promises it: the exit code, nothing on standard output, exactly one line on
    /// standard error that starts with the tool's prefix and the error kind. Returns that line.
    /// </summary>
    public string AssertFailure(int exitCode, string kind)
    {
        Assert.True(ExitCode == exitCode, $"Exit code {ExitCode}, expected {exitCode}; stderr: {Error}");
        Assert.Empty(Output);
        string line = Assert.Single(ErrorLines);
        Assert.StartsWith("cosmos-encryption: " + kind, line, StringComparison.Ordinal);
        return line;
    }
}

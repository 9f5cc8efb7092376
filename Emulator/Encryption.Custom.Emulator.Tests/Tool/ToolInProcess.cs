using System.Text;
using Encryption.Custom.Tool;

namespace Encryption.Custom.Emulator.Tests.Tool;

/// <summary>
/// The tool's entry point (<c>ToolApplication.RunAsync</c>, what <c>Main</c> calls) run inside the test process, with
/// the endpoint's key in <c>COSMOS_KEY</c> as an operator passes it. The same code as the child process minus process
/// start-up; the one test that must see a real process die (SIGKILL) uses <see cref="ToolProcess"/>.
/// </summary>
internal static class ToolInProcess
{
    /// <summary>
    /// Runs the tool to its end (bounded); <paramref name="onLine"/> sees each line of standard output as it is written,
    /// <paramref name="stdin"/> is its standard input (none when null).
    /// </summary>
    public static async Task<ToolResult> RunAsync(CosmosEndpoint endpoint, IEnumerable<string> args, TimeSpan bound, Action<string>? onLine = null, byte[]? stdin = null, CancellationToken cancellationToken = default)
    {
        // Every test of the assembly talks to the one bundled endpoint, so the variable has one value for all of them.
        Environment.SetEnvironmentVariable("COSMOS_KEY", endpoint.Key);
        using var output = new LineStream(onLine);
        using var error = new StringWriter();
        using Stream input = stdin is null ? Stream.Null : new MemoryStream(stdin, writable: false);
        Task<int> run = ToolApplication.RunAsync([.. args], new ToolConsole(input, output, error), cancellationToken);
        int exitCode = await run.WaitAsync(bound, TestContext.Current.CancellationToken);
        return new ToolResult(exitCode, output.Lines, error.ToString());
    }

    // Standard output split into lines as it is written, so a test can act on a progress line mid-run.
    private sealed class LineStream(Action<string>? onLine) : MemoryStream
    {
        private readonly List<string> _lines = [];
        private readonly StringBuilder _pending = new();
        private readonly Lock _lock = new();

        public IReadOnlyList<string> Lines
        {
            get
            {
                lock (_lock)
                {
                    return _pending.Length > 0 ? [.. _lines, _pending.ToString()] : [.. _lines];
                }
            }
        }

        public override void Write(byte[] buffer, int offset, int count) => Write(buffer.AsSpan(offset, count));

        public override void Write(ReadOnlySpan<byte> buffer)
        {
            List<string> complete = [];
            lock (_lock)
            {
                foreach (char c in Encoding.UTF8.GetString(buffer))
                {
                    if (c == '\n')
                    {
                        complete.Add(_pending.ToString());
                        _pending.Clear();
                    }
                    else
                    {
                        _pending.Append(c);
                    }
                }

                _lines.AddRange(complete);
            }

            foreach (string line in complete)
            {
                onLine?.Invoke(line);
            }
        }

        public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
        {
            Write(buffer.AsSpan(offset, count));
            return Task.CompletedTask;
        }

        public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
        {
            Write(buffer.Span);
            return ValueTask.CompletedTask;
        }
    }
}

using System.Text;
using Encryption.Custom.Tool.Tests.TestSupport;

namespace Encryption.Custom.Tool.Tests.Commands;

/// <summary>Failures of the standard streams themselves, and cancellation, through the entry point.</summary>
public sealed class StandardStreamTests : IDisposable
{
    private readonly TempFolder _folder = new();
    private readonly TestKey _key = TestKey.Random();

    public void Dispose() => _folder.Dispose();

    [Fact]
    public async Task Run_StandardOutputFails_ExitsOneWithOutputFailed()
    {
        ToolRun run = await RunWithOutputAsync(new FailingStream(new IOException("pipe closed")));

        Assert.Equal(ExitCodes.Failure, run.ExitCode);
        Assert.StartsWith("cosmos-encryption: OutputFailed: ", Assert.Single(run.ErrorLines), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_UnexpectedFailure_ExitsOneWithoutTheExceptionMessage()
    {
        ToolRun run = await RunWithOutputAsync(new FailingStream(new InvalidOperationException("plaintext 123-45-6789")));

        Assert.Equal(ExitCodes.Failure, run.ExitCode);
        string line = Assert.Single(run.ErrorLines);
        Assert.StartsWith("cosmos-encryption: Unexpected: ", line, StringComparison.Ordinal);
        Assert.DoesNotContain("123-45-6789", line, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_Cancelled_ExitsOneAndWritesNothing()
    {
        using var input = new MemoryStream(Encoding.UTF8.GetBytes(TestDocuments.Plain));
        using var output = new MemoryStream();
        using var error = new StringWriter();
        string outFile = _folder.File("out.json");

        int exitCode = await ToolApplication.RunAsync(
            [.. TestDocuments.EncryptArguments(_key.WriteKeyFile(_folder)), "--out", outFile],
            new ToolConsole(input, output, error),
            new CancellationToken(canceled: true));

        Assert.Equal(ExitCodes.Failure, exitCode);
        Assert.StartsWith("cosmos-encryption: Cancelled", error.ToString(), StringComparison.Ordinal);
        Assert.False(File.Exists(outFile));
        Assert.Equal(0, output.Length);
    }

    private async Task<ToolRun> RunWithOutputAsync(Stream output)
    {
        using var input = new MemoryStream(Encoding.UTF8.GetBytes(TestDocuments.Plain));
        using var error = new StringWriter { NewLine = "\n" };
        int exitCode = await ToolApplication.RunAsync(
            TestDocuments.EncryptArguments(_key.WriteKeyFile(_folder)),
            new ToolConsole(input, output, error),
            TestContext.Current.CancellationToken);
        return new ToolRun(exitCode, [], error.ToString());
    }

    /// <summary>Standard output that fails every write with the given exception.</summary>
    private sealed class FailingStream(Exception failure) : Stream
    {
        public override bool CanRead => false;

        public override bool CanSeek => false;

        public override bool CanWrite => true;

        public override long Length => throw new NotSupportedException();

        public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

        public override void Flush()
        {
        }

        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw failure;

        public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default) => ValueTask.FromException(failure);
    }
}

using System.Diagnostics;
using Encryption.Custom.Tool.Documents;
using Encryption.Custom.Tool.Tests.TestSupport;

namespace Encryption.Custom.Tool.Tests.Commands;

/// <summary>
/// <c>--out</c> replaces only a missing or regular file (temporary file and rename); a FIFO or character device is
/// written through and stays what it was; a symbolic link is refused and neither it nor its target is touched.
/// Every special file lives in a private temporary folder (never a real /dev entry).
/// </summary>
public sealed class OutputTargetTests : IDisposable
{
    private const string PreviousContent = "previous content";

    private readonly TempFolder _folder = new();
    private readonly TestKey _key = TestKey.Random();

    public void Dispose() => _folder.Dispose();

    [Fact]
    public async Task Encrypt_OutToAFifo_WritesThroughAndKeepsTheFifo()
    {
        Assert.SkipWhen(OperatingSystem.IsWindows(), "FIFOs are a Unix feature.");
        string fifo = _folder.File("pipe");
        RunProgram("mkfifo", fifo);
        string keyFile = _key.WriteKeyFile(_folder);

        // The reader opens the FIFO as the tool writes to it (opening blocks until both ends are there).
        Task<byte[]> reader = Task.Factory.StartNew(() => File.ReadAllBytes(fifo), TaskCreationOptions.LongRunning);
        ToolRun run = await InProcessTool.RunWithInputAsync(TestDocuments.Plain, [.. TestDocuments.EncryptArguments(keyFile), "--out", fifo]);
        byte[] received = await reader.WaitAsync(TimeSpan.FromSeconds(60), TestContext.Current.CancellationToken);

        run.AssertSuccess();
        Assert.Equal(OutputTargetKind.WriteThrough, OutputTarget.Classify(fifo));
        ToolRun decrypted = (await InProcessTool.RunWithInputAsync(received, "decrypt", "--key-file", keyFile)).AssertSuccess();
        JsonAssert.Equivalent(TestDocuments.Plain, decrypted.OutputText);
        Assert.Equal(["dek.hex", "pipe"], _folder.FileNames());
    }

    [Fact]
    public async Task Decrypt_OutToACharacterDevice_WritesThroughAndKeepsTheDeviceNode()
    {
        Assert.SkipWhen(OperatingSystem.IsWindows(), "Device nodes are a Unix feature.");
        Assert.SkipUnless(Environment.IsPrivilegedProcess, "Creating a device node needs root.");

        // A private node for the null device (1, 3) in the test's own folder.
        string device = _folder.File("null-device");
        RunProgram("mknod", device, "c", "1", "3");
        string keyFile = _key.WriteKeyFile(_folder);
        ToolRun encrypted = (await InProcessTool.RunWithInputAsync(TestDocuments.Plain, TestDocuments.EncryptArguments(keyFile))).AssertSuccess();

        ToolRun run = await InProcessTool.RunWithInputAsync(encrypted.Output, "decrypt", "--key-file", keyFile, "--out", device);

        run.AssertSuccess();
        Assert.Equal(OutputTargetKind.WriteThrough, OutputTarget.Classify(device));
        Assert.Equal(0, new FileInfo(device).Length);
        Assert.Equal(["dek.hex", "null-device"], _folder.FileNames());
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task Decrypt_OutToASymbolicLink_IsRefusedAndTouchesNeitherLinkNorTarget(bool dangling)
    {
        string target = _folder.File("target.json");
        if (!dangling)
        {
            File.WriteAllText(target, PreviousContent);
        }

        string link = _folder.File("link.json");
        File.CreateSymbolicLink(link, target);
        string keyFile = _key.WriteKeyFile(_folder);
        ToolRun encrypted = (await InProcessTool.RunWithInputAsync(TestDocuments.Plain, TestDocuments.EncryptArguments(keyFile))).AssertSuccess();
        string[] filesBefore = _folder.FileNames();

        ToolRun run = await InProcessTool.RunWithInputAsync(encrypted.Output, "decrypt", "--key-file", keyFile, "--out", link);

        string line = run.AssertFailure(ExitCodes.Failure, "OutputFailed");
        Assert.Contains("symbolic link", line, StringComparison.Ordinal);
        Assert.Equal(target, new FileInfo(link).LinkTarget);
        Assert.Equal(dangling ? null : PreviousContent, File.Exists(target) ? File.ReadAllText(target) : null);
        Assert.Equal(filesBefore, _folder.FileNames());
    }

    [Fact]
    public async Task Encrypt_OutToAFolder_IsRefused()
    {
        string keyFile = _key.WriteKeyFile(_folder);
        string folder = Directory.CreateDirectory(_folder.File("sub")).FullName;

        ToolRun run = await InProcessTool.RunWithInputAsync(TestDocuments.Plain, [.. TestDocuments.EncryptArguments(keyFile), "--out", folder]);

        run.AssertFailure(ExitCodes.Failure, "OutputFailed");
        Assert.Empty(Directory.GetFileSystemEntries(folder));
        Assert.Equal(["dek.hex"], _folder.FileNames());
    }

    [Fact]
    public async Task Encrypt_OutToARegularFile_ReplacesItAtomically()
    {
        string keyFile = _key.WriteKeyFile(_folder);
        string output = _folder.Write("out.json", PreviousContent);

        (await InProcessTool.RunWithInputAsync(TestDocuments.Plain, [.. TestDocuments.EncryptArguments(keyFile), "--out", output])).AssertSuccess();

        Assert.Equal(OutputTargetKind.RegularFile, OutputTarget.Classify(output));
        Assert.StartsWith("{", File.ReadAllText(output), StringComparison.Ordinal);
        Assert.Equal(["dek.hex", "out.json"], _folder.FileNames());
    }

    private static void RunProgram(string program, params string[] arguments)
    {
        var start = new ProcessStartInfo(program) { RedirectStandardError = true, UseShellExecute = false };
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using Process process = Process.Start(start)!;
        string error = process.StandardError.ReadToEnd();
        process.WaitForExit();
        Assert.True(process.ExitCode == 0, $"{program} failed: {error}");
    }
}

using System.IO.Compression;
using System.Text;
using Encryption.Custom.Tool.Tests.TestSupport;

namespace Encryption.Custom.Tool.Tests.Packaging;

/// <summary>
/// The tool package installs with <c>dotnet tool install --tool-path</c> from a local folder, and the installed command
/// works. Under eng/test.sh that is the package eng/pack.sh produced (ENCRYPTION_CUSTOM_PACKAGES names its folder);
/// run alone, the test packs the tool it was built with (warnings are errors in every build here).
/// </summary>
public sealed class PackedToolTests : IDisposable
{
    /// <summary>Set by eng/test.sh to artifacts/packages after eng/pack.sh ran.</summary>
    private const string PackagesVariable = "ENCRYPTION_CUSTOM_PACKAGES";

    private readonly TempFolder _folder = new();

    public void Dispose() => _folder.Dispose();

    [Fact]
    public async Task PackedTool_InstalledIntoToolPath_RunsItsCommands()
    {
        CancellationToken cancel = TestContext.Current.CancellationToken;
        string toolPath = _folder.File("tools");
        string packages = Environment.GetEnvironmentVariable(PackagesVariable) is { Length: > 0 } packed
            ? Path.GetFullPath(packed)
            : await PackAsync();
        string package = Assert.Single(Directory.GetFiles(packages, "Encryption.Custom.Tool.*.nupkg"));
        AssertToolPackage(package);

        // Only the local folder as a source, and a private package cache so that no stale copy of the same version is used.
        string config = _folder.Write(
            "nuget.config",
            $"""<?xml version="1.0" encoding="utf-8"?><configuration><packageSources><clear /><add key="local" value="{packages}" /></packageSources></configuration>""");
        ToolRun install = await ProcessRunner.RunAsync(
            ProcessRunner.DotnetHost,
            ["tool", "install", "Encryption.Custom.Tool", "--tool-path", toolPath, "--configfile", config, "--version", PackageVersion(package)],
            timeout: TimeSpan.FromMinutes(5),
            environment: new Dictionary<string, string> { ["NUGET_PACKAGES"] = _folder.File("nuget-cache") });
        Assert.True(install.ExitCode == 0, Encoding.UTF8.GetString(install.Output) + install.Error);

        string command = Path.Combine(toolPath, OperatingSystem.IsWindows() ? "cosmos-encryption.exe" : "cosmos-encryption");
        Assert.True(File.Exists(command), $"{command} was not installed.");

        ToolRun help = (await ProcessRunner.RunAsync(command, ["--help"])).AssertSuccess();
        Assert.Contains("cosmos-encryption", help.OutputText, StringComparison.Ordinal);
        ToolRun version = (await ProcessRunner.RunAsync(command, ["--version"])).AssertSuccess();
        Assert.Matches("^[0-9]+\\.[0-9]+\\.[0-9]+", version.OutputText);

        TestKey key = TestKey.Random();
        string keyFile = key.WriteKeyFile(_folder);
        string input = _folder.Write("plain.json", TestDocuments.Plain);
        string encrypted = _folder.File("encrypted.json");
        (await ProcessRunner.RunAsync(command, [.. TestDocuments.EncryptArguments(keyFile), "--in", input, "--out", encrypted])).AssertSuccess();
        ToolRun decrypted = (await ProcessRunner.RunAsync(command, ["decrypt", "--key-file", keyFile], await File.ReadAllBytesAsync(encrypted, cancel))).AssertSuccess();
        JsonAssert.Equivalent(TestDocuments.Plain, decrypted.OutputText);

        ToolRun wrongKey = await ProcessRunner.RunAsync(command, ["decrypt", "--key-file", TestKey.Random().WriteKeyFile(_folder, "other.hex"), "--in", encrypted]);
        wrongKey.AssertFailure(ExitCodes.BadInput, "InvalidCipherText");
    }

    // Packs what the test build already built (the project reference), in the same configuration.
    private async Task<string> PackAsync()
    {
        string packages = Directory.CreateDirectory(_folder.File("packages")).FullName;
        ToolRun pack = await ProcessRunner.RunAsync(
            ProcessRunner.DotnetHost,
            ["pack", BuiltTool.ProjectPath, "-c", BuiltTool.Configuration, "--no-build", "-o", packages, "-p:TreatWarningsAsErrors=true"],
            timeout: TimeSpan.FromMinutes(5));
        Assert.True(pack.ExitCode == 0, Encoding.UTF8.GetString(pack.Output) + pack.Error);
        return packages;
    }

    private static void AssertToolPackage(string package)
    {
        using ZipArchive archive = ZipFile.OpenRead(package);
        string nuspec = Read(archive.Entries.Single(e => e.FullName.EndsWith(".nuspec", StringComparison.Ordinal)));
        Assert.Contains("<packageType name=\"DotnetTool\" />", nuspec, StringComparison.Ordinal);
        ZipArchiveEntry settings = archive.Entries.Single(e => e.Name == "DotnetToolSettings.xml");
        Assert.Contains("Name=\"cosmos-encryption\"", Read(settings), StringComparison.Ordinal);
        Assert.Contains(archive.Entries, e => e.FullName.EndsWith("/Encryption.Custom.dll", StringComparison.Ordinal));
    }

    private static string PackageVersion(string package) =>
        Path.GetFileNameWithoutExtension(package)["Encryption.Custom.Tool.".Length..];

    private static string Read(ZipArchiveEntry entry)
    {
        using var reader = new StreamReader(entry.Open());
        return reader.ReadToEnd();
    }
}

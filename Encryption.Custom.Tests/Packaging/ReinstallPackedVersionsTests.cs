using System.IO.Compression;
using System.Text;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Packaging;

/// <summary>
/// After eng/pack.sh forgets the cached build of a packed version, eng/reinstall-packed-versions.sh puts the new build
/// back into the global packages folder (NuGet extracting it), so an application built earlier against the local
/// package, whose incremental build trusts its earlier restore, finds the package's files (issue 36) and they are new.
/// </summary>
public sealed class ReinstallPackedVersionsTests : IDisposable
{
    private readonly string _root = Directory.CreateTempSubdirectory("reinstall-packed-").FullName;

    public void Dispose() => Directory.Delete(_root, recursive: true);

    [Fact]
    public async Task PackedPackages_AreExtractedIntoThePackagesFolder_AsNuGetLaysThemOut()
    {
        if (OperatingSystem.IsWindows())
        {
            Assert.Skip("The eng scripts are bash.");
        }

        string packed = Directory.CreateDirectory(Path.Combine(_root, "packages")).FullName;
        string cache = Directory.CreateDirectory(Path.Combine(_root, "cache")).FullName;
        WritePackage(packed, "Demo.Packed", "1.2.3", "new build");
        await File.WriteAllBytesAsync(Path.Combine(packed, "Demo.Packed.1.2.3.snupkg"), [], TestContext.Current.CancellationToken);

        await EngScript.RunAsync("reinstall-packed-versions.sh", packed, cache);

        string folder = Path.Combine(cache, "demo.packed", "1.2.3");
        Assert.True(File.Exists(Path.Combine(folder, ".nupkg.metadata")), "NuGet's metadata file is missing: not extracted by NuGet");
        Assert.True(File.Exists(Path.Combine(folder, "demo.packed.nuspec")));
        Assert.Equal("new build", await File.ReadAllTextAsync(Path.Combine(folder, "content", "build.txt"), TestContext.Current.CancellationToken));
    }

    [Fact]
    public void Pack_ReinstallsWhatItForgets()
    {
        string text = File.ReadAllText(RepositoryFiles.Path("eng", "pack.sh"));
        int forget = text.IndexOf("eng/forget-packed-versions.sh \"$out\" \"$global_packages\"", StringComparison.Ordinal);
        int reinstall = text.IndexOf("eng/reinstall-packed-versions.sh \"$out\" \"$global_packages\"", StringComparison.Ordinal);
        Assert.True(forget >= 0 && reinstall > forget, "eng/pack.sh must reinstall the packed versions after forgetting them");
    }

    // A minimal package NuGet accepts: the nuspec at the root and one content file.
    private static void WritePackage(string folder, string id, string version, string content)
    {
        using ZipArchive zip = ZipFile.Open(Path.Combine(folder, $"{id}.{version}.nupkg"), ZipArchiveMode.Create);
        using (var nuspec = new StreamWriter(zip.CreateEntry($"{id}.nuspec").Open(), new UTF8Encoding(false)))
        {
            nuspec.Write($"""
                <?xml version="1.0" encoding="utf-8"?>
                <package xmlns="http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd">
                  <metadata><id>{id}</id><version>{version}</version><authors>tests</authors><description>A test package.</description></metadata>
                </package>
                """);
        }

        using var file = new StreamWriter(zip.CreateEntry("content/build.txt").Open(), new UTF8Encoding(false));
        file.Write(content);
    }
}

using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Packaging;

/// <summary>
/// Repacking the same version is safe: eng/forget-packed-versions.sh (run by eng/pack.sh on the global packages
/// folder and by eng/build-sample.sh on the sample's) drops exactly the packed ids and versions from a NuGet
/// packages folder, so the next restore extracts the new packages instead of the cached ones.
/// </summary>
public sealed class ForgetPackedVersionsTests : IDisposable
{
    private readonly string _root = Directory.CreateTempSubdirectory("forget-packed-").FullName;

    public void Dispose() => Directory.Delete(_root, recursive: true);

    [Fact]
    public async Task PackedPackages_EveryPackedIdAndVersionIsForgotten_NothingElse()
    {
        if (OperatingSystem.IsWindows())
        {
            Assert.Skip("The eng scripts are bash.");
        }

        string packed = Directory.CreateDirectory(Path.Combine(_root, "packages")).FullName;
        string cache = Directory.CreateDirectory(Path.Combine(_root, "cache")).FullName;
        foreach (string file in new[]
        {
            "Encryption.Custom.0.1.0.nupkg", "Encryption.Custom.0.1.0.snupkg",
            "Encryption.Custom.Hosting.0.1.0.nupkg", "Encryption.Custom.Tool.0.1.0-beta.2.nupkg",
        })
        {
            await File.WriteAllBytesAsync(Path.Combine(packed, file), [], TestContext.Current.CancellationToken);
        }

        string[] cached =
        [
            "encryption.custom/0.1.0", "encryption.custom/0.0.9", "encryption.custom.hosting/0.1.0",
            "encryption.custom.tool/0.1.0-beta.2", "encryption.custom.tool/0.1.0", "newtonsoft.json/13.0.3",
        ];
        foreach (string folder in cached)
        {
            Directory.CreateDirectory(Path.Combine(cache, folder));
        }

        await EngScript.RunAsync("forget-packed-versions.sh", packed, cache);

        Assert.Equal(
            ["encryption.custom.tool/0.1.0", "encryption.custom/0.0.9", "newtonsoft.json/13.0.3"],
            cached.Where(folder => Directory.Exists(Path.Combine(cache, folder))).Order(StringComparer.Ordinal));
    }

    [Fact]
    public void PackAndSampleBuild_UseTheScript_NoHandWrittenIdList()
    {
        // The hosting package was once left out of a hand-written list of ids, so its repack stayed cached.
        foreach (string script in new[] { "eng/pack.sh", "eng/build-sample.sh" })
        {
            string text = File.ReadAllText(RepositoryFiles.Path(script));
            Assert.Contains("eng/forget-packed-versions.sh", text, StringComparison.Ordinal);
            Assert.DoesNotContain("rm -rf artifacts/sample-packages/", text, StringComparison.Ordinal);
            Assert.DoesNotContain("for id in encryption.custom", text, StringComparison.Ordinal);
        }
    }
}

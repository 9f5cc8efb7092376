using Encryption.Custom.Json.Rules;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Architecture;

/// <summary>
/// No source file of the shipped projects grows past <see cref="MaxLines"/> lines: a file that long holds more than
/// one concept (the house rule: small files, one concept each). Split it along a concept, as a partial class's
/// second file when the concept shares the type's state (e.g. <c>EncryptionPlan.Commitment.cs</c>).
/// </summary>
public sealed class SourceFileSizeTests
{
    private const int MaxLines = 400;

    public static TheoryData<string> ShippedProjects => ["Encryption.Custom", "Encryption.Custom.Hosting", "Encryption.Custom.Tool"];

    [Theory]
    [MemberData(nameof(ShippedProjects))]
    public void EverySourceFile_IsAtMostTheLimit(string project)
    {
        string root = RepositoryFiles.Path(project);
        string[] files = [.. Directory.EnumerateFiles(root, "*.cs", SearchOption.AllDirectories)
            .Where(path => !IsBuildOutput(root, path))];
        Assert.NotEmpty(files);

        string[] tooLong = [.. files
            .Select(path => (Path: Path.GetRelativePath(RepositoryFiles.Root, path), Lines: File.ReadLines(path).Count()))
            .Where(file => file.Lines > MaxLines)
            .Select(file => $"{file.Path}: {file.Lines} lines")];
        Assert.True(tooLong.Length == 0, $"Longer than {MaxLines} lines: {string.Join("; ", tooLong)}");
    }

    private static bool IsBuildOutput(string root, string path)
    {
        string first = Path.GetRelativePath(root, path).Split(Path.DirectorySeparatorChar)[0];
        return first is "bin" or "obj";
    }
}

using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Documentation;

/// <summary>
/// Every C# block of the README, the package README and every page under docs/ is compiled and run by the sample
/// (samples/Encryption.Custom.Sample, built against the package by eng/test.sh and run by eng/run.sh): each block
/// must appear in one of the sample's files line for line (indentation aside), so the documents cannot drift from
/// code that builds. A block counts as C# whatever its fence says (<c>csharp</c>, <c>cs</c>, <c>c#</c>).
/// </summary>
public sealed class DocumentationSnippetTests
{
    // Documents that must show code: the README, the package README and the getting-started page.
    private static readonly string[] s_withCode = ["README.md", "Encryption.Custom/PACKAGE.md", "docs/getting-started.md"];

    private static readonly string[] s_csharpFences = ["```csharp", "```cs", "```c#"];

    public static TheoryData<string> Documents
    {
        get
        {
            IEnumerable<string> pages = Directory.GetFiles(RepositoryFiles.Path("docs"), "*.md")
                .Select(path => "docs/" + Path.GetFileName(path))
                .Order(StringComparer.Ordinal);
            return new(s_withCode.Union(pages));
        }
    }

    [Theory]
    [MemberData(nameof(Documents))]
    public void CSharpBlocks_OfDocument_AppearInTheSample(string document)
    {
        List<string[]> blocks = CSharpBlocks(File.ReadAllLines(RepositoryFiles.Path(document)));
        if (s_withCode.Contains(document))
        {
            Assert.NotEmpty(blocks);
        }

        string[][] sources = Directory.GetFiles(RepositoryFiles.Path("samples"), "*.cs", SearchOption.AllDirectories)
            .Where(path => !path.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}", StringComparison.Ordinal))
            .Select(path => Normalize(File.ReadAllLines(path)))
            .ToArray();

        foreach (string[] block in blocks)
        {
            Assert.True(
                sources.Any(source => Contains(source, block)),
                $"This block of {document} is not in any file under samples/ (copy it from there, or add it there):\n{string.Join('\n', block)}");
        }
    }

    [Fact]
    public void Documents_IncludeEveryPageUnderDocs()
    {
        string[] documents = Documents.Select(row => row.Data).ToArray();

        Assert.Contains("docs/key-management.md", documents);
        Assert.Contains("docs/migrating.md", documents);
        Assert.Equal(Directory.GetFiles(RepositoryFiles.Path("docs"), "*.md").Length + 2, documents.Length);
    }

    [Fact]
    public void CSharpBlocks_AnyCSharpFence_IsABlock()
    {
        string[] markdown = ["```cs", "a();", "```", "```C#", "b();", "```", "```sh", "c", "```", "```csharp", "d();", "```"];

        Assert.Equal([["a();"], ["b();"], ["d();"]], CSharpBlocks(markdown));
    }

    [Fact]
    public void Contains_BlockWithALineMissingFromTheSource_IsFalse()
    {
        string[] source = ["a();", "b();", "c();"];

        Assert.True(Contains(source, ["b();", "c();"]));
        Assert.False(Contains(source, ["a();", "c();"]));
        Assert.False(Contains(source, ["c();", "d();"]));
    }

    private static List<string[]> CSharpBlocks(string[] lines)
    {
        var blocks = new List<string[]>();
        List<string>? current = null;
        foreach (string line in lines)
        {
            string trimmed = line.Trim();
            if (current is null && s_csharpFences.Contains(trimmed, StringComparer.OrdinalIgnoreCase))
            {
                current = [];
            }
            else if (current is not null && trimmed == "```")
            {
                blocks.Add(Normalize([.. current]));
                current = null;
            }
            else
            {
                current?.Add(line);
            }
        }

        return blocks;
    }

    private static string[] Normalize(string[] lines) => lines.Select(l => l.Trim()).Where(l => l.Length > 0).ToArray();

    // The block's lines as one contiguous run of the source's lines.
    private static bool Contains(string[] source, string[] block)
    {
        for (int start = 0; start + block.Length <= source.Length; start++)
        {
            if (source.AsSpan(start, block.Length).SequenceEqual(block))
            {
                return true;
            }
        }

        return false;
    }
}

using System.Text;
using System.Text.RegularExpressions;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Documentation;

/// <summary>
/// Every relative link in the repository's documents resolves to a file or folder of the repository (and a
/// <c>#fragment</c> to a heading of the target), and nothing points outside the repository to the team's shared
/// folder, which exists only on the team's machines.
/// </summary>
public sealed partial class MarkdownLinkTests
{
    // The team's folder beside the repository, spelled in parts so this guard is not itself a pointer to it.
    private static readonly string s_sharedFolder = string.Join('/', "..", "shared");

    public static TheoryData<string> Documents()
    {
        var documents = new TheoryData<string>("README.md", "Emulator/README.md", "Encryption.Custom/PACKAGE.md");
        foreach (string path in Directory.GetFiles(RepositoryFiles.Path("docs"), "*.md").Order(StringComparer.Ordinal))
        {
            documents.Add("docs/" + Path.GetFileName(path));
        }

        return documents;
    }

    [Theory]
    [MemberData(nameof(Documents))]
    public void RelativeLinks_OfDocument_Resolve(string document)
    {
        string path = RepositoryFiles.Path(document);
        List<string> broken = [];
        foreach (string link in Links(File.ReadAllText(path)))
        {
            if (Broken(path, link) is { } problem)
            {
                broken.Add($"{link}: {problem}");
            }
        }

        Assert.True(broken.Count == 0, $"{document} has links that do not resolve:\n{string.Join('\n', broken)}");
    }

    [Theory]
    [MemberData(nameof(Documents))]
    public void Document_NeverPointsToTheSharedFolder(string document) =>
        Assert.DoesNotContain(s_sharedFolder, File.ReadAllText(RepositoryFiles.Path(document)), StringComparison.Ordinal);

    [Fact]
    public void Broken_MissingFileOrHeading_IsReported()
    {
        string readme = RepositoryFiles.Path("README.md");

        Assert.Null(Broken(readme, "docs/design.md"));
        Assert.Null(Broken(readme, "eng/test.sh"));
        Assert.NotNull(Broken(readme, "docs/no-such-page.md"));
        Assert.NotNull(Broken(readme, "docs/design.md#no-such-heading"));
        Assert.NotNull(Broken(readme, s_sharedFolder + "/docs/architecture.md"));
        Assert.Equal(["a.md", "b.md#x"], Links("[a](a.md) `[c](c.md)` [b](b.md#x \"title\") [w](https://example.invalid/)\n```\n[d](d.md)\n```"));
    }

    [Fact]
    public void Anchor_FollowsTheRenderedHeadingIds() =>
        Assert.Equal("cosmos-sdk-versions-and-the-floor", Anchor("Cosmos SDK versions (and the floor)!"));

    // The problem with one link, or null when it resolves.
    private static string? Broken(string document, string link)
    {
        int hash = link.IndexOf('#', StringComparison.Ordinal);
        string target = hash < 0 ? link : link[..hash];
        string? fragment = hash < 0 ? null : link[(hash + 1)..];
        string full = target.Length == 0 ? document : Path.GetFullPath(Path.Combine(Path.GetDirectoryName(document)!, Uri.UnescapeDataString(target)));
        if (!full.StartsWith(RepositoryFiles.Root.TrimEnd(Path.DirectorySeparatorChar) + Path.DirectorySeparatorChar, StringComparison.Ordinal))
        {
            return "points outside the repository";
        }

        if (!File.Exists(full) && !Directory.Exists(full))
        {
            return "no such file";
        }

        if (fragment is not null && full.EndsWith(".md", StringComparison.Ordinal)
            && !Headings(File.ReadAllLines(full)).Contains(fragment, StringComparer.Ordinal))
        {
            return "no such heading";
        }

        return null;
    }

    // Inline links outside code blocks and code spans; absolute URLs (scheme:) are not checked.
    private static List<string> Links(string markdown)
    {
        var text = new StringBuilder();
        bool fenced = false;
        foreach (string line in markdown.Split('\n'))
        {
            if (line.TrimStart().StartsWith("```", StringComparison.Ordinal))
            {
                fenced = !fenced;
                continue;
            }

            if (!fenced)
            {
                text.AppendLine(CodeSpan().Replace(line, string.Empty));
            }
        }

        return LinkTarget().Matches(text.ToString())
            .Select(match => match.Groups["target"].Value)
            .Where(target => !Scheme().IsMatch(target))
            .ToList();
    }

    private static IEnumerable<string> Headings(IEnumerable<string> lines)
    {
        bool fenced = false;
        foreach (string line in lines)
        {
            if (line.TrimStart().StartsWith("```", StringComparison.Ordinal))
            {
                fenced = !fenced;
            }
            else if (!fenced && Heading().Match(line) is { Success: true } heading)
            {
                yield return Anchor(heading.Groups["text"].Value);
            }
        }
    }

    // GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens.
    private static string Anchor(string heading)
    {
        var anchor = new StringBuilder();
        foreach (char c in CodeTicks().Replace(heading.Trim(), string.Empty).ToLowerInvariant())
        {
            if (char.IsLetterOrDigit(c) || c is '-' or '_')
            {
                anchor.Append(c);
            }
            else if (c == ' ')
            {
                anchor.Append('-');
            }
        }

        return anchor.ToString();
    }

    [GeneratedRegex(@"`[^`]*`")]
    private static partial Regex CodeSpan();

    [GeneratedRegex(@"`")]
    private static partial Regex CodeTicks();

    [GeneratedRegex(@"\]\((?<target>[^)\s]+)(\s+""[^""]*"")?\)")]
    private static partial Regex LinkTarget();

    [GeneratedRegex(@"^[a-zA-Z][a-zA-Z0-9+.-]*:")]
    private static partial Regex Scheme();

    [GeneratedRegex(@"^#{1,6}\s+(?<text>.+?)\s*#*\s*$")]
    private static partial Regex Heading();
}

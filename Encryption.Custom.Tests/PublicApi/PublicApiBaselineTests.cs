using System.Text;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.PublicApi;

/// <summary>
/// The public API of each package's assembly is locked by api/&lt;assembly&gt;.txt (api/Encryption.Custom.txt, api/Encryption.Custom.Hosting.txt): any added, removed or changed public or protected
/// member fails here with the difference, and the new listing is written to api/&lt;assembly&gt;.received.txt so a
/// deliberate change is accepted by copying it over the baseline (docs/public-api.md).
/// </summary>
public sealed class PublicApiBaselineTests
{
    /// <summary>The shipped assemblies, each with its baseline api/&lt;name&gt;.txt.</summary>
    public static TheoryData<string> Assemblies => new("Encryption.Custom", "Encryption.Custom.Hosting");

    [Theory]
    [MemberData(nameof(Assemblies))]
    public void PublicApi_ComparedWithBaseline_IsUnchanged(string assemblyName)
    {
        string baselinePath = RepositoryFiles.Path("api", assemblyName + ".txt");
        string receivedPath = RepositoryFiles.Path("api", assemblyName + ".received.txt");
        string actual = PublicApiListing.Generate(System.Reflection.Assembly.Load(assemblyName));
        string expected = File.Exists(baselinePath) ? File.ReadAllText(baselinePath).ReplaceLineEndings("\n") : string.Empty;
        if (actual == expected)
        {
            File.Delete(receivedPath);
            return;
        }

        File.WriteAllText(receivedPath, actual);
        Assert.Fail(
            $"The public API differs from {baselinePath}. If the change is deliberate, copy {receivedPath} over it.\n"
            + LineDiff(expected, actual));
    }

    [Fact]
    public void PublicApiListing_OfThisAssembly_ListsPublicAndProtectedMembersOnly()
    {
        string listing = PublicApiListing.Generate(typeof(ListingSubject).Assembly);

        string subject = Block(listing, "public abstract class Encryption.Custom.Tests.PublicApi.ListingSubject");
        Assert.Equal(
            [
                "  protected ListingSubject(string? name, params int[] values)",
                "  protected abstract System.Threading.Tasks.Task<string?> RunAsync<T>(T item, System.Threading.CancellationToken cancel = default) where T : class",
                "  public const string Kind = \"subject\"",
                "  public string Name { get; protected set; }",
                "  public virtual System.Collections.Generic.IReadOnlyList<string?>? Tags { get; init; }",
                "  public void Fill(out int count, in long origin, ref byte[] buffer)",
            ],
            subject.Split('\n')[1..]);
        Assert.Equal(
            "public static class Encryption.Custom.Tests.PublicApi.ListingSubjectExtensions\n"
            + "  public static bool IsNamed(this Encryption.Custom.Tests.PublicApi.ListingSubject subject, string name)",
            Block(listing, "public static class Encryption.Custom.Tests.PublicApi.ListingSubjectExtensions"));
        Assert.DoesNotContain("Hidden", listing, StringComparison.Ordinal);
        Assert.DoesNotContain("Internal", subject, StringComparison.Ordinal);
    }

    [Fact]
    public void PublicApiListing_GeneratedTwice_IsIdentical()
    {
        Assert.Equal(
            PublicApiListing.Generate(typeof(EncryptionException).Assembly),
            PublicApiListing.Generate(typeof(EncryptionException).Assembly));
    }

    // The type's line and its member lines, up to the next type.
    private static string Block(string listing, string typeLine)
    {
        string[] lines = listing.Split('\n');
        int start = Array.IndexOf(lines, typeLine);
        Assert.True(start >= 0, $"'{typeLine}' is not listed.");
        int end = start + 1;
        while (end < lines.Length && lines[end].StartsWith("  ", StringComparison.Ordinal))
        {
            end++;
        }

        return string.Join('\n', lines[start..end]);
    }

    // Lines only in the baseline (-) and only in the new listing (+), in listing order; enough to review a change.
    private static string LineDiff(string expected, string actual)
    {
        var expectedLines = expected.Split('\n').ToHashSet(StringComparer.Ordinal);
        var actualLines = actual.Split('\n').ToHashSet(StringComparer.Ordinal);
        var diff = new StringBuilder();
        foreach (string line in expected.Split('\n').Where(l => !actualLines.Contains(l)))
        {
            diff.Append("- ").Append(line).Append('\n');
        }

        foreach (string line in actual.Split('\n').Where(l => !expectedLines.Contains(l)))
        {
            diff.Append("+ ").Append(line).Append('\n');
        }

        return diff.Length > 0 ? diff.ToString() : "(same lines, different order or line endings)";
    }
}

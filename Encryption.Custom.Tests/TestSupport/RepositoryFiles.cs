using System.Reflection;

namespace Encryption.Custom.Tests.TestSupport;

/// <summary>Files of the repository these tests were built from (the project records its root at build time).</summary>
internal static class RepositoryFiles
{
    public static string Root { get; } =
        typeof(RepositoryFiles).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>().Single(a => a.Key == "RepositoryRoot").Value
        ?? throw new InvalidOperationException("No RepositoryRoot metadata.");

    public static string Path(params string[] parts) => System.IO.Path.GetFullPath(System.IO.Path.Combine([Root, .. parts]));
}

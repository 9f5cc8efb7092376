using System.Reflection;

namespace Encryption.Custom.Tool.Tests.TestSupport;

/// <summary>The tool as built next to these tests (the project reference copies it with its runtime configuration).</summary>
internal static class BuiltTool
{
    public static string AssemblyPath { get; } = Path.Combine(AppContext.BaseDirectory, "Encryption.Custom.Tool.dll");

    /// <summary>The tool's project file and the configuration these tests were built in (for packing).</summary>
    public static string ProjectPath => Metadata("ToolProject");

    public static string Configuration => Metadata("Configuration");

    /// <summary>Runs <c>dotnet Encryption.Custom.Tool.dll args</c> as a child process.</summary>
    public static Task<ToolRun> RunAsync(byte[]? stdin, params string[] args) =>
        ProcessRunner.RunAsync(ProcessRunner.DotnetHost, [AssemblyPath, .. args], stdin);

    private static string Metadata(string key) =>
        typeof(BuiltTool).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>().Single(a => a.Key == key).Value
        ?? throw new InvalidOperationException($"No {key} metadata.");
}

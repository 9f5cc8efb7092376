using System.Diagnostics;
using System.Text;
using Encryption.Custom.Cosmos.Queries;
using Encryption.Custom.Cosmos.Queries.Sql;

namespace Encryption.Custom.Tests.Cosmos.Queries.Limits;

/// <summary>
/// Any query text ends in a result or a clear refusal, never a crash (issue 32): the tokenizer, parser and analyzer
/// recurse, and a stack overflow cannot be caught. The huge inputs run in a child process (this test executable
/// running <see cref="ChildProcessEntry_HugeQueries"/>), so a regression shows as a crashed child, not a crashed run.
/// </summary>
public sealed class QueryLimitsTests
{
    private const string ChildVariable = "ENCRYPTION_CUSTOM_QUERY_LIMITS_CHILD";
    private static readonly QueryPolicyPaths s_paths = new(QueryGuardTests.Policy);

    [Fact]
    public void NestingBeyondTheLimit_IsRefusedNamingIt()
    {
        string atLimit = Nested(SqlLimits.MaxDepth - 8);
        string beyond = Nested(SqlLimits.MaxDepth + 1);

        Assert.Single(QueryGuard.Analyze(atLimit, s_paths));
        NotSupportedException refused = Assert.Throws<NotSupportedException>(() => QueryGuard.Analyze(beyond, s_paths));
        Assert.Contains($"{SqlLimits.MaxDepth} levels", refused.Message, StringComparison.Ordinal);
        Assert.Contains("docs/queries.md", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void NestingBeyondTheLimit_IsRefusedEvenWithoutAPolicyName()
    {
        // Not a syntax error that the guard would send untouched: the parser could not read it either way.
        Assert.Throws<NotSupportedException>(() => QueryGuard.Analyze("SELECT * FROM c WHERE " + new string('(', 200) + "c.x = 1" + new string(')', 200), s_paths));
    }

    [Fact]
    public void ALeftDeepChainBeyondTheLimit_IsRefused()
    {
        string chain = "SELECT * FROM c WHERE c.ssn = @p AND c.n = " + string.Join(" - ", Enumerable.Repeat("c.n", SqlLimits.MaxDepth + 1));
        string member = "SELECT * FROM c WHERE c.ssn = @p AND c" + string.Concat(Enumerable.Repeat(".n", SqlLimits.MaxDepth + 1)) + " = 1";

        Assert.Throws<NotSupportedException>(() => QueryGuard.Analyze(chain, s_paths));
        Assert.Throws<NotSupportedException>(() => QueryGuard.Analyze(member, s_paths));
    }

    [Fact]
    public void TextBeyondCosmosDbsLimit_IsRefusedNamingIt()
    {
        string text = "SELECT * FROM c WHERE c.ssn = @p AND c.name = '" + new string('x', SqlLimits.MaxTextLength) + "'";

        NotSupportedException refused = Assert.Throws<NotSupportedException>(() => QueryGuard.Analyze(text, s_paths));
        Assert.Contains($"{SqlLimits.MaxTextLength} characters", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void FlatAndOrChains_AreReadAsBalancedTrees()
    {
        // Small enough to be safe in-process without the fix; the long chains run in the child below.
        SqlQuery query = SqlParser.Parse(Chain(1_000, " AND "), out _);

        Assert.InRange(Depth(query.Where!), 1, 12);
        Assert.Equal(500, QueryGuard.Analyze(Chain(1_000, " OR "), s_paths).Count);
    }

    [Fact]
    public async Task HugeQueries_EndInAResultOrARefusal_InAChildProcess()
    {
        string? host = Environment.ProcessPath;
        Assert.NotNull(host);
        var start = new ProcessStartInfo(host) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        if (Path.GetFileNameWithoutExtension(host) == "dotnet")
        {
            start.ArgumentList.Add(typeof(QueryLimitsTests).Assembly.Location); // run by a dotnet host: name the test assembly
        }

        start.ArgumentList.Add("-method");
        start.ArgumentList.Add($"{typeof(QueryLimitsTests).FullName}.{nameof(ChildProcessEntry_HugeQueries)}");
        start.Environment[ChildVariable] = "1";
        using Process child = Process.Start(start)!;
        Task<string> output = child.StandardOutput.ReadToEndAsync(TestContext.Current.CancellationToken);
        Task<string> errors = child.StandardError.ReadToEndAsync(TestContext.Current.CancellationToken);
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        timeout.CancelAfter(TimeSpan.FromMinutes(3)); // a bound on a hung child, not a speed assertion
        await child.WaitForExitAsync(timeout.Token);
        string log = await output + await errors;

        bool passed = child.ExitCode == 0 && log.Contains("Total: 1, Errors: 0, Failed: 0", StringComparison.Ordinal);
        Assert.True(passed, $"the child crashed or failed (exit code {child.ExitCode}):\n{Tail(log)}");
    }

    // Runs only as the child of HugeQueries_EndInAResultOrARefusal_InAChildProcess (in-process it could end the test
    // run with a stack overflow); in an ordinary run it returns at once.
    [Fact]
    public void ChildProcessEntry_HugeQueries()
    {
        if (Environment.GetEnvironmentVariable(ChildVariable) != "1")
        {
            return;
        }

        string[] refused =
        [
            "SELECT * FROM c WHERE " + new string('(', 5_000) + "c.ssn = @p" + new string(')', 5_000), // the 10 KB query of issue 32
            "SELECT * FROM c WHERE c.ssn = @p AND c.n = " + new string('-', 100_000) + "1",
            "SELECT * FROM c WHERE c.ssn = @p AND " + string.Concat(Enumerable.Repeat("NOT ", 50_000)) + "c.ok",
            "SELECT * FROM c WHERE c.ssn = @p AND c" + string.Concat(Enumerable.Repeat("[0]", 100_000)) + " = 1",
            "SELECT * FROM c WHERE c.n = " + string.Join(" ?? ", Enumerable.Repeat("c.n", 50_000)) + " AND c.ssn = @p",
            "SELECT * FROM c WHERE " + string.Concat(Enumerable.Repeat("EXISTS(SELECT VALUE 1 FROM c WHERE ", 3_000)) + "c.ssn = @p" + new string(')', 3_000),
        ];
        foreach (string text in refused)
        {
            Assert.Throws<NotSupportedException>(() => QueryGuard.Analyze(text, s_paths));
        }

        // Flat chains within the length limit are answered, whatever their length (12,000 terms: issue 32).
        Assert.Equal(6_000, QueryGuard.Analyze(Chain(12_000, " AND "), s_paths).Count);
        Assert.Equal(15_000, QueryGuard.Analyze(Chain(30_000, " OR "), s_paths).Count); // 405 KB
    }

    private static string Nested(int depth) =>
        "SELECT * FROM c WHERE " + new string('(', depth) + "c.ssn = @p" + new string(')', depth);

    // n terms, every other one a comparison with the deterministic /ssn.
    private static string Chain(int terms, string op)
    {
        var text = new StringBuilder("SELECT * FROM c WHERE ");
        for (int i = 0; i < terms; i++)
        {
            text.Append(i == 0 ? string.Empty : op).Append(i % 2 == 0 ? "c.ssn = @p" : "c.n = 1");
        }

        return text.ToString();
    }

    private static int Depth(SqlExpression expression) =>
        expression is SqlBinary binary ? 1 + Math.Max(Depth(binary.Left), Depth(binary.Right)) : 1;

    private static string Tail(string log) => log.Length <= 4_000 ? log : log[^4_000..];
}

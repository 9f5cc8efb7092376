namespace Encryption.Custom.Emulator.Tests.Tool;

/// <summary><c>status</c> and <c>migrate</c> on a misspelt name: the error names the resource and its option, not a bare 404.</summary>
public sealed class StatusCommandTests(ToolFixture fixture) : IClassFixture<ToolFixture>
{
    private static readonly TimeSpan s_runBound = TimeSpan.FromMinutes(1);

    [Fact]
    public async Task Status_MisspeltContainer_NamesTheContainerAndItsOption()
    {
        ToolResult run = await ToolInProcess.RunAsync(fixture.Endpoint, ["status", "--endpoint", fixture.Endpoint.Uri.ToString(), "--database", fixture.Database.Id, "--container", "ordres"], s_runBound, cancellationToken: TestContext.Current.CancellationToken);

        string error = run.AssertFailure(1, "NotFound");
        Assert.Contains($"the container 'ordres' (--container) does not exist in the database '{fixture.Database.Id}'", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Status_MisspeltDatabase_NamesTheDatabaseAndItsOption()
    {
        ToolResult run = await ToolInProcess.RunAsync(fixture.Endpoint, ["status", "--endpoint", fixture.Endpoint.Uri.ToString(), "--database", "nosuchdb", "--container", "orders"], s_runBound, cancellationToken: TestContext.Current.CancellationToken);

        string error = run.AssertFailure(1, "NotFound");
        Assert.Contains("the database 'nosuchdb' (--database) does not exist", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Migrate_MisspeltDekContainer_NamesItBeforeAnythingIsRead()
    {
        Container raw = await fixture.CreateContainerAsync(TestContext.Current.CancellationToken);
        string[] args = [.. fixture.MigrateArguments(raw, "leases-" + Guid.NewGuid().ToString("N")), "--dek-id", ToolFixture.Dek1, "--path", "/ssn"];
        args[Array.IndexOf(args, ToolFixture.DekContainer)] = "kyes";

        ToolResult run = await ToolInProcess.RunAsync(fixture.Endpoint, args, s_runBound, cancellationToken: TestContext.Current.CancellationToken);

        string error = run.AssertFailure(1, "NotFound");
        Assert.Contains("the container 'kyes' (--dek-container)", error, StringComparison.Ordinal);
    }
}

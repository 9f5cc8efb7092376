namespace Encryption.Custom.Emulator.Tests.Sdk;

public sealed class IsolationFirstTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    [Fact]
    public Task SameIdsInParallelClass_OwnDatabase_SeesOnlyOwnWrites() =>
        IsolationScenario.RunAsync(fixture, nameof(IsolationFirstTests), TestContext.Current.CancellationToken);
}

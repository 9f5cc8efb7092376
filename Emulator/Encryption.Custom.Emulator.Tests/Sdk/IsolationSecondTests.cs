namespace Encryption.Custom.Emulator.Tests.Sdk;

public sealed class IsolationSecondTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    [Fact]
    public Task SameIdsInParallelClass_OwnDatabase_SeesOnlyOwnWrites() =>
        IsolationScenario.RunAsync(fixture, nameof(IsolationSecondTests), TestContext.Current.CancellationToken);
}

namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// Cosmos DB answers container reads and document reads with the container's resource quota and usage
/// (<c>x-ms-resource-quota</c>, <c>x-ms-resource-usage</c>: <c>name=value;</c> pairs, sizes in KB, a
/// document count of -1 for "unlimited").
/// </summary>
public sealed class ResourceUsageTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static Dictionary<string, string> Pairs(string? header)
    {
        Assert.False(string.IsNullOrEmpty(header), "the header is missing");
        return header.Split(';', StringSplitOptions.RemoveEmptyEntries)
            .Select(pair => pair.Split('=', 2))
            .ToDictionary(pair => pair[0], pair => pair[1]);
    }

    [Fact]
    public async Task ContainerAndDocumentReads_CarryQuotaAndUsage()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        IReadOnlyList<TestDocument> documents = await TestDocument.SeedAsync(container, 5, 3, Ct);

        ContainerResponse read = await container.ReadContainerAsync(cancellationToken: Ct);
        Dictionary<string, string> quota = Pairs(read.Headers["x-ms-resource-quota"]);
        Dictionary<string, string> usage = Pairs(read.Headers["x-ms-resource-usage"]);
        Assert.Equal("-1", quota["documentsCount"]);
        Assert.True(long.Parse(usage["documentsSize"], System.Globalization.CultureInfo.InvariantCulture) >= 0);
        if (fixture.Endpoint.IsBundled)
        {
            // An account updates its usage figures in the background; the bundled server counts exactly.
            Assert.Equal("5", usage["documentsCount"]);
        }

        ItemResponse<TestDocument> item = await container.ReadItemAsync<TestDocument>(documents[0].Id, documents[0].PartitionKey, cancellationToken: Ct);
        Assert.Contains("documentsCount", Pairs(item.Headers["x-ms-resource-quota"]).Keys);
        Assert.Contains("documentsSize", Pairs(item.Headers["x-ms-resource-usage"]).Keys);
    }
}

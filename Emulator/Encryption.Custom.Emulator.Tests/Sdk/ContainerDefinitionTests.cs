namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// Container definitions Cosmos DB refuses with 400 (BadRequest): a partition key path without a leading '/', a
/// hierarchical key with more than three paths, a "Hash" key with several paths, a unique key repeated, an id
/// longer than 255 characters (the SDK itself refuses ids with '/', '\', '?' or '#' before sending). Valid definitions, hierarchical keys included, are created.
/// </summary>
public sealed class ContainerDefinitionTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static string NewId() => "c-" + Guid.NewGuid().ToString("N");

    public static TheoryData<string> RefusedDefinitions => new()
    {
        "path without slash",
        "four hierarchical paths",
        "hierarchical version 1",
        "repeated unique key",
        "id too long",
    };

    private static ContainerProperties Definition(string name) => name switch
    {
        // The SDK's ContainerProperties only refuses a missing key; the rest reaches the service.
        "path without slash" => new ContainerProperties(NewId(), "pk"),
        "four hierarchical paths" => new ContainerProperties(NewId(), ["/a", "/b", "/c", "/d"]),
        "hierarchical version 1" => new ContainerProperties(NewId(), ["/a", "/b"]) { PartitionKeyDefinitionVersion = PartitionKeyDefinitionVersion.V1 },
        "repeated unique key" => new ContainerProperties(NewId(), "/pk")
        {
            UniqueKeyPolicy = new UniqueKeyPolicy { UniqueKeys = { Key("/email"), Key("/email") } },
        },
        "id too long" => new ContainerProperties(new string('c', 256), "/pk"),
        _ => throw new ArgumentOutOfRangeException(nameof(name), name, null),
    };

    private static UniqueKey Key(string path)
    {
        var key = new UniqueKey();
        key.Paths.Add(path);
        return key;
    }

    [Theory]
    [MemberData(nameof(RefusedDefinitions))]
    public async Task InvalidDefinition_Is400(string name)
    {
        ContainerProperties definition = Definition(name);

        CosmosException ex = await Assert.ThrowsAsync<CosmosException>(() => fixture.Database.CreateContainerAsync(definition, cancellationToken: Ct));

        Assert.Equal(HttpStatusCode.BadRequest, ex.StatusCode);
        Assert.False(string.IsNullOrWhiteSpace(ex.ResponseBody));
    }

    [Fact]
    public async Task ValidDefinitions_HierarchicalAndNestedPaths_AreCreated()
    {
        ContainerResponse hierarchical = await fixture.Database.CreateContainerAsync(
            new ContainerProperties(NewId(), ["/tenant", "/user", "/session"]), cancellationToken: Ct);
        ContainerResponse nested = await fixture.Database.CreateContainerAsync(
            new ContainerProperties(NewId(), "/address/zip") { UniqueKeyPolicy = new UniqueKeyPolicy { UniqueKeys = { Key("/email"), Key("/phone") } } },
            cancellationToken: Ct);
        ContainerResponse longestId = await fixture.Database.CreateContainerAsync(new ContainerProperties(new string('d', 255), "/pk"), cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.Created, hierarchical.StatusCode);
        Assert.Equal(3, hierarchical.Resource.PartitionKeyPaths.Count);
        Assert.Equal(HttpStatusCode.Created, nested.StatusCode);
        Assert.Equal(HttpStatusCode.Created, longestId.StatusCode);
    }
}

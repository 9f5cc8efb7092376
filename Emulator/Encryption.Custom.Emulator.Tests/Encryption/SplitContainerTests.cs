using Encryption.Custom.Cosmos;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>
/// The encryption container over a container with several partition key ranges, one of which splits while
/// a query or a change feed is being read: the SDK merges the ranges' pages (ORDER BY across ranges) and
/// moves to the split range's children, and the container decrypts every document once, in order.
/// </summary>
public sealed class SplitContainerTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private async Task<(Container Raw, Container Encrypted)> CreateAsync()
    {
        var properties = new ContainerProperties("c-" + Guid.NewGuid().ToString("N"), CosmosDatabaseFixture.DefaultPartitionKeyPath)
        {
            PartitionKeyDefinitionVersion = PartitionKeyDefinitionVersion.V2, // several ranges on the bundled server
        };
        Container raw = (await fixture.Database.CreateContainerAsync(properties, cancellationToken: Ct)).Container;
        return (raw, raw.WithEncryptor(fixture.Encryptor));
    }

    private static async Task<List<SecretDocument>> WriteAsync(Container container, string prefix, int count)
    {
        var documents = new List<SecretDocument>();
        for (int i = 0; i < count; i++)
        {
            // A key per document spreads them over every range; names sort in write order.
            SecretDocument document = SecretDocument.Create($"{prefix}-key-{i}", $"{prefix}-{i:D2}") with { Ssn = $"{prefix}-ssn-{i}", Salary = i };
            await container.CreateItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek1, SecretDocument.SecretPaths), Ct);
            documents.Add(document);
        }

        return documents;
    }

    private static void AssertSameInOrder(IReadOnlyList<SecretDocument> expected, IReadOnlyList<SecretDocument> actual)
    {
        Assert.Equal(expected.Select(d => d.Id), actual.Select(d => d.Id));
        Assert.All(expected.Zip(actual), pair => Assert.True(pair.First.ValueEquals(pair.Second), $"{pair.First.Id} did not decrypt to what was written"));
    }

    [Fact]
    public async Task CrossPartitionOrderByQuery_ThroughASplit_DecryptsEveryDocumentOnceInOrder()
    {
        (Container raw, Container container) = await CreateAsync();
        List<SecretDocument> documents = await WriteAsync(container, "q", 30);
        if (fixture.Endpoint.IsBundled)
        {
            Assert.True((await raw.GetFeedRangesAsync(Ct)).Count > 1, "expected several partition key ranges");
        }

        using FeedIterator<SecretDocument> query = container.GetItemQueryIterator<SecretDocument>(
            "SELECT * FROM c ORDER BY c.name DESC", requestOptions: new QueryRequestOptions { MaxItemCount = 4 });
        var actual = new List<SecretDocument>();
        actual.AddRange(await query.ReadNextAsync(Ct));
        Assert.Equal(fixture.Endpoint.IsBundled, await PartitionSplits.SplitAsync(fixture.Endpoint, raw, cancellationToken: Ct));
        actual.AddRange(await query.ReadAllAsync(Ct));

        AssertSameInOrder([.. documents.OrderByDescending(d => d.Name, StringComparer.Ordinal)], actual);
    }

    [Fact]
    public async Task ChangeFeed_ThroughASplit_DecryptsEveryDocumentOnce()
    {
        (Container raw, Container container) = await CreateAsync();
        List<SecretDocument> before = await WriteAsync(container, "before", 16);
        FeedIterator<SecretDocument> feed = container.GetChangeFeedIterator<SecretDocument>(
            ChangeFeedStartFrom.Beginning(), ChangeFeedMode.LatestVersion, new ChangeFeedRequestOptions { PageSizeHint = 3 });

        var changes = new List<SecretDocument>();
        changes.AddRange(await feed.ReadNextAsync(Ct));
        Assert.Equal(fixture.Endpoint.IsBundled, await PartitionSplits.SplitAsync(fixture.Endpoint, raw, cancellationToken: Ct));
        List<SecretDocument> after = await WriteAsync(container, "after", 16);
        (IReadOnlyList<FeedResponse<SecretDocument>> pages, _) = await feed.ReadChangesAsync(Ct);
        changes.AddRange(pages.SelectMany(p => p));

        List<SecretDocument> expected = [.. before.Concat(after).OrderBy(d => d.Id, StringComparer.Ordinal)];
        AssertSameInOrder(expected, [.. changes.OrderBy(d => d.Id, StringComparer.Ordinal)]);
    }
}

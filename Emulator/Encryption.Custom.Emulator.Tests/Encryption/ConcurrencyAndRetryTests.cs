using System.Collections.Concurrent;
using Encryption.Custom.Cosmos;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>
/// Many writers and readers on shared containers and keys lose nothing and never encrypt twice, whether a body
/// is re-read by a retry below the container or the caller retries with the same options object.
/// </summary>
public sealed class ConcurrencyAndRetryTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task ParallelWritersAndReaders_SharedContainerAndKeys_AllDocumentsRoundTripOnce()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        Container secondWrapper = raw.WithEncryptor(fixture.Encryptor);

        // Shared options objects, used concurrently by every task.
        EncryptionItemRequestOptions dek1 = EncryptionFixture.Encrypt(EncryptionFixture.Dek1, SecretDocument.SecretPaths);
        EncryptionItemRequestOptions dek2 = EncryptionFixture.Encrypt(EncryptionFixture.Dek2, SecretDocument.SecretPaths);
        SecretDocument[] documents = [.. Enumerable.Range(0, 60).Select(i => SecretDocument.Create($"p{i % 4}", $"N{i}") with { Ssn = $"ssn-{i}", Salary = i })];
        var errors = new ConcurrentQueue<string>();

        await Parallel.ForEachAsync(documents, new ParallelOptions { MaxDegreeOfParallelism = 16, CancellationToken = Ct }, async (document, ct) =>
        {
            Container writer = document.Salary % 2 == 0 ? container : secondWrapper;
            EncryptionItemRequestOptions options = document.Salary % 3 == 0 ? dek2 : dek1;
            await writer.CreateItemAsync(document, document.PartitionKey, options, ct);
            SecretDocument changed = document with { Name = document.Name + "-u" };
            await writer.UpsertItemAsync(changed, document.PartitionKey, options, ct);
            ItemResponse<SecretDocument> read = await (writer == container ? secondWrapper : container).ReadItemAsync<SecretDocument>(document.Id, document.PartitionKey, cancellationToken: ct);
            if (!changed.ValueEquals(read.Resource))
            {
                errors.Enqueue(document.Id);
            }
        });

        Assert.Empty(errors);
        List<SecretDocument> all = await container.GetItemQueryIterator<SecretDocument>("SELECT * FROM c").ReadAllAsync(Ct);
        Assert.Equal(documents.Length, all.Count);
        Assert.All(documents, d => Assert.True((d with { Name = d.Name + "-u" }).ValueEquals(all.Single(a => a.Id == d.Id))));
        JObject stored = await RawDocuments.ReadAsync(raw, documents[3].Id, documents[3].PartitionKey, Ct);
        Assert.Equal(EncryptionFixture.Dek2, (string?)stored["_ei"]!["_en"]);
    }

    [Fact]
    public async Task CallerRetriesWithTheSameOptions_DocumentIsEncryptedOnce()
    {
        (Container raw, Container container) = await fixture.GetSharedContainerAsync(Ct);
        EncryptionItemRequestOptions options = EncryptionFixture.Encrypt(EncryptionFixture.Dek1, SecretDocument.SecretPaths);
        SecretDocument document = SecretDocument.Create();

        await container.UpsertItemAsync(document, document.PartitionKey, options, Ct);
        await container.UpsertItemAsync(document, document.PartitionKey, options, Ct);
        CosmosException conflict = await Assert.ThrowsAsync<CosmosException>(() => container.CreateItemAsync(document, document.PartitionKey, options, Ct));

        Assert.Equal(HttpStatusCode.Conflict, conflict.StatusCode);
        ItemResponse<SecretDocument> read = await container.ReadItemAsync<SecretDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.True(document.ValueEquals(read.Resource));
        JObject stored = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        Assert.Equal(["/ssn", "/salary", "/rating", "/active", "/address", "/tags"], stored["_ei"]!["_ep"]!.Values<string>());
    }

    [Fact]
    public async Task RequestBodyReadTwiceBelowTheContainer_IsSentIdenticallyAndStoredEncryptedOnce()
    {
        var handler = new ReadBodyTwiceHandler();
        using CosmosClient client = fixture.Endpoint.CreateClient(options => options.CustomHandlers.Add(handler));
        (Container shared, _) = await fixture.GetSharedContainerAsync(Ct);
        Container raw = client.GetContainer(fixture.Database.Id, shared.Id);
        Container container = raw.WithEncryptor(fixture.Encryptor);
        SecretDocument document = SecretDocument.Create();

        await container.CreateItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek1, SecretDocument.SecretPaths), Ct);

        (byte[] first, byte[] second) = Assert.Single(handler.Bodies);
        Assert.Equal(first, second);
        JObject sent = JObject.Parse(System.Text.Encoding.UTF8.GetString(first));
        Assert.NotEqual(document.Ssn, (string?)sent["ssn"]);
        Assert.NotNull(sent["_ei"]);
        ItemResponse<SecretDocument> read = await container.ReadItemAsync<SecretDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.True(document.ValueEquals(read.Resource));
    }

    /// <summary>Reads each document write's body, rewinds it and reads it again, as a retry would, before sending it.</summary>
    private sealed class ReadBodyTwiceHandler : RequestHandler
    {
        public ConcurrentQueue<(byte[] First, byte[] Second)> Bodies { get; } = new();

        public override async Task<ResponseMessage> SendAsync(RequestMessage request, CancellationToken cancellationToken)
        {
            // A create is a POST with a body to the container's link.
            if (request.Method == HttpMethod.Post && request.Content is { CanSeek: true } content && request.RequestUri.OriginalString.Contains("/colls/", StringComparison.Ordinal))
            {
                byte[] first = await ReadAsync(content, cancellationToken);
                content.Position = 0;
                byte[] second = await ReadAsync(content, cancellationToken);
                content.Position = 0;
                Bodies.Enqueue((first, second));
            }

            return await base.SendAsync(request, cancellationToken);
        }

        private static async Task<byte[]> ReadAsync(Stream stream, CancellationToken cancellationToken)
        {
            using var copy = new MemoryStream();
            await stream.CopyToAsync(copy, cancellationToken);
            return copy.ToArray();
        }
    }
}

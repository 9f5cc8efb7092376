using Newtonsoft.Json;

namespace Encryption.Custom.Emulator.Tests.Infrastructure;

/// <summary>A small document for the integration tests (partition key path <c>/pk</c>).</summary>
public sealed record TestDocument(
    [property: JsonProperty("id")] string Id,
    [property: JsonProperty("pk")] string Pk,
    [property: JsonProperty("name")] string Name,
    [property: JsonProperty("score")] int Score)
{
    /// <summary>A document with a unique id.</summary>
    public static TestDocument Create(string pk = "p0", string name = "Alpha", int score = 0) =>
        new(Guid.NewGuid().ToString("N"), pk, name, score);

    /// <summary>The partition key of this document.</summary>
    [JsonIgnore]
    public PartitionKey PartitionKey => new(Pk);

    /// <summary>Creates <paramref name="count"/> documents spread round-robin over <paramref name="partitions"/>
    /// partitions ("p0", "p1", ...) with values 0..count-1, and returns them in value order.</summary>
    public static async Task<IReadOnlyList<TestDocument>> SeedAsync(
        Container container, int count, int partitions, CancellationToken cancellationToken)
    {
        var documents = new List<TestDocument>(count);
        for (int i = 0; i < count; i++)
        {
            TestDocument document = Create($"p{i % partitions}", $"Name{i}", i);
            await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: cancellationToken);
            documents.Add(document);
        }

        return documents;
    }
}

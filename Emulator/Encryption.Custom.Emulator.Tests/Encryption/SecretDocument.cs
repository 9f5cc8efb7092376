using Newtonsoft.Json;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>A document with one property of every JSON type, most of them meant to be encrypted.</summary>
public sealed record SecretDocument
{
    /// <summary>Every property except <c>id</c>, <c>pk</c> and <c>name</c>.</summary>
    public static readonly string[] SecretPaths = ["/ssn", "/salary", "/rating", "/active", "/address", "/tags", "/notes"];

    [JsonProperty("id")]
    public string Id { get; init; } = Guid.NewGuid().ToString("N");

    [JsonProperty("pk")]
    public string Pk { get; init; } = "p0";

    [JsonProperty("name")]
    public string Name { get; init; } = "Alice";

    [JsonProperty("ssn")]
    public string Ssn { get; init; } = "123-45-6789 \"quoted\" é😀";

    [JsonProperty("salary")]
    public long Salary { get; init; } = 9007199254740993;

    [JsonProperty("rating")]
    public double Rating { get; init; } = -2.5;

    [JsonProperty("active")]
    public bool Active { get; init; } = true;

    [JsonProperty("address")]
    public Address Address { get; init; } = new("Main St 1", "Springfield");

    [JsonProperty("tags")]
    public IReadOnlyList<string> Tags { get; init; } = ["a", "b"];

    [JsonProperty("notes")]
    public string? Notes { get; init; }

    public PartitionKey PartitionKey => new(Pk);

    public static SecretDocument Create(string pk = "p0", string name = "Alice") => new() { Pk = pk, Name = name };

    public bool ValueEquals(SecretDocument? other) =>
        other is not null
        && Id == other.Id && Pk == other.Pk && Name == other.Name && Ssn == other.Ssn && Salary == other.Salary
        && Rating.Equals(other.Rating) && Active == other.Active && Address == other.Address
        && Tags.SequenceEqual(other.Tags) && Notes == other.Notes;
}

using System.Text.Json;
using Encryption.Custom.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>Typed operations serialize with the client's configured serializer, exactly as without encryption.</summary>
[SdkSmoke]
public sealed class SerializerTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>, IDisposable
{
    private readonly List<CosmosClient> _clients = [];
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public sealed class Customer
    {
        public string Id { get; set; } = Guid.NewGuid().ToString("N");

        public string Pk { get; set; } = "p0";

        public string? SocialSecurityNumber { get; set; }

        public string? Nickname { get; set; }

        public int Age { get; set; }
    }

    private async Task<(Container Raw, Container Encrypted)> ContainerForAsync(Action<CosmosClientOptions> configure)
    {
        (Container shared, _) = await fixture.GetSharedContainerAsync(Ct);
        CosmosClient client = fixture.Endpoint.CreateClient(configure);
        _clients.Add(client);
        Container raw = client.GetContainer(fixture.Database.Id, shared.Id);
        return (raw, raw.WithEncryptor(fixture.Encryptor));
    }

    public void Dispose() => _clients.ForEach(c => c.Dispose());

    [Fact]
    public async Task SystemTextJsonSerializer_CamelCase_IsUsedForItemsAndResponses()
    {
        (Container raw, Container container) = await ContainerForAsync(options =>
            options.UseSystemTextJsonSerializerWithOptions = new JsonSerializerOptions { PropertyNamingPolicy = JsonNamingPolicy.CamelCase });
        var customer = new Customer { SocialSecurityNumber = "078-05-1120", Age = 40 };

        ItemResponse<Customer> created = await container.CreateItemAsync(customer, new PartitionKey("p0"), EncryptionFixture.Encrypt(EncryptionFixture.Dek1, "/socialSecurityNumber", "/age"), Ct);
        ItemResponse<Customer> read = await container.ReadItemAsync<Customer>(customer.Id, new PartitionKey("p0"), cancellationToken: Ct);

        JObject stored = await RawDocuments.ReadAsync(raw, customer.Id, new PartitionKey("p0"), Ct);
        Assert.NotNull(stored["socialSecurityNumber"]);
        Assert.NotEqual("078-05-1120", (string?)stored["socialSecurityNumber"]);
        Assert.Equal(JTokenType.String, stored["age"]!.Type);
        Assert.Equal(("078-05-1120", 40), (created.Resource.SocialSecurityNumber, created.Resource.Age));
        Assert.Equal(("078-05-1120", 40), (read.Resource.SocialSecurityNumber, read.Resource.Age));
    }

    [Fact]
    public async Task SerializerOptions_CamelCaseAndIgnoreNulls_AreHonoured()
    {
        (Container raw, Container container) = await ContainerForAsync(options =>
            options.SerializerOptions = new CosmosSerializationOptions { PropertyNamingPolicy = CosmosPropertyNamingPolicy.CamelCase, IgnoreNullValues = true });
        var customer = new Customer { SocialSecurityNumber = "secret", Nickname = null, Age = 3 };

        await container.UpsertItemAsync(customer, new PartitionKey("p0"), EncryptionFixture.Encrypt(EncryptionFixture.Dek2, "/socialSecurityNumber", "/nickname"), Ct);
        ItemResponse<Customer> read = await container.ReadItemAsync<Customer>(customer.Id, new PartitionKey("p0"), cancellationToken: Ct);

        JObject stored = await RawDocuments.ReadAsync(raw, customer.Id, new PartitionKey("p0"), Ct);
        Assert.False(stored.ContainsKey("nickname"));
        Assert.NotEqual("secret", (string?)stored["socialSecurityNumber"]);
        Assert.Equal(["/socialSecurityNumber"], stored["_ei"]!["_ep"]!.Values<string>());
        Assert.Equal("secret", read.Resource.SocialSecurityNumber);
    }

    [Fact]
    public async Task CustomSerializer_IsUsedForWritesAndReads()
    {
        var serializer = new CountingSerializer();
        (Container raw, Container container) = await ContainerForAsync(options => options.Serializer = serializer);
        var customer = new Customer { SocialSecurityNumber = "custom", Age = 9 };

        await container.CreateItemAsync(customer, new PartitionKey("p0"), EncryptionFixture.Encrypt(EncryptionFixture.Dek1, "/SOCIALSECURITYNUMBER"), Ct);
        ItemResponse<Customer> read = await container.ReadItemAsync<Customer>(customer.Id, new PartitionKey("p0"), cancellationToken: Ct);

        Assert.True(serializer.Writes >= 1);
        Assert.True(serializer.Reads >= 1);
        JObject stored = await RawDocuments.ReadAsync(raw, customer.Id, new PartitionKey("p0"), Ct);
        Assert.NotEqual("custom", (string?)stored["SOCIALSECURITYNUMBER"]);
        Assert.Equal("custom", read.Resource.SocialSecurityNumber);
    }

    /// <summary>System.Text.Json with upper-case names (to prove it is the one used), counting its calls.</summary>
    private sealed class CountingSerializer : CosmosSerializer
    {
        private static readonly JsonSerializerOptions s_options = new() { PropertyNamingPolicy = new UpperCase(), PropertyNameCaseInsensitive = true };
        private int _reads;
        private int _writes;

        public int Reads => _reads;

        public int Writes => _writes;

        public override T FromStream<T>(Stream stream)
        {
            Interlocked.Increment(ref _reads);
            using (stream)
            {
                return JsonSerializer.Deserialize<T>(stream, s_options)!;
            }
        }

        public override Stream ToStream<T>(T input)
        {
            Interlocked.Increment(ref _writes);
            var stream = new MemoryStream();
            JsonSerializer.Serialize(stream, input, s_options);
            stream.Position = 0;
            return stream;
        }

        private sealed class UpperCase : JsonNamingPolicy
        {
            public override string ConvertName(string name) => name is "Id" or "Pk" ? name.ToLowerInvariant() : name.ToUpperInvariant();
        }
    }
}

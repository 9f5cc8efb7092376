using System.Text;
using Encryption.Custom.Cosmos.Serialization;
using Encryption.Custom.Crypto.Pooling;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Serialization;

/// <summary>The default item serializer writes what the SDK's default serializer writes for the same options.</summary>
public sealed class NewtonsoftItemSerializerTests
{
    public sealed class Item
    {
        public string? FirstName { get; set; }

        public string? Missing { get; set; }

        public int Count { get; set; }
    }

    private static string Write(CosmosSerializer serializer, Item item)
    {
        using Stream stream = serializer.ToStream(item);
        using var reader = new StreamReader(stream, Encoding.UTF8);
        return reader.ReadToEnd();
    }

    [Fact]
    public void ToStream_Defaults_AreTheSdkDefaults()
    {
        string json = Write(new NewtonsoftItemSerializer(null), new Item { FirstName = "a", Count = 2 });

        Assert.Equal("""{"FirstName":"a","Missing":null,"Count":2}""", json);
    }

    [Fact]
    public void ToStream_CamelCaseAndIgnoreNulls_AreApplied()
    {
        var options = new CosmosSerializationOptions { PropertyNamingPolicy = CosmosPropertyNamingPolicy.CamelCase, IgnoreNullValues = true };

        string json = Write(new NewtonsoftItemSerializer(options), new Item { FirstName = "a", Count = 2 });

        Assert.Equal("""{"firstName":"a","count":2}""", json);
    }

    [Fact]
    public void ToStream_WritesToAZeroingPooledStream()
    {
        using Stream stream = new NewtonsoftItemSerializer(null).ToStream(new Item());

        Assert.IsType<PooledMemoryStream>(stream);
        Assert.Equal(0, stream.Position);
    }

    [Fact]
    public void FromStream_ReadsAndDisposesTheStream()
    {
        var stream = new MemoryStream("""{"FirstName":"b","Count":3}"""u8.ToArray());

        Item item = new NewtonsoftItemSerializer(null).FromStream<Item>(stream);

        Assert.Equal(("b", 3), (item.FirstName, item.Count));
        Assert.False(stream.CanRead);
    }

    [Fact]
    public void For_ClientWithCustomSerializer_ReturnsIt()
    {
        var custom = new NewtonsoftItemSerializer(null);

        Assert.Same(custom, ItemSerializers.For(new CosmosClientOptions { Serializer = custom }));
        Assert.IsType<NewtonsoftItemSerializer>(ItemSerializers.For(new CosmosClientOptions()));
    }
}

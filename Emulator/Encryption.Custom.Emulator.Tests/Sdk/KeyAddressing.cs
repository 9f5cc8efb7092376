using System.Text;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>The partition key shapes the key-addressing tests run on.</summary>
public enum KeyShape
{
    /// <summary>One path, <c>/pk</c>, hash version 2.</summary>
    Hash,

    /// <summary>Hierarchical (kind MultiHash): <c>/tenant</c>, <c>/user</c>.</summary>
    TwoLevels,

    /// <summary>Hierarchical (kind MultiHash): <c>/tenant</c>, <c>/user</c>, <c>/session</c>.</summary>
    ThreeLevels,
}

/// <summary>
/// Containers, items and partition keys of one <see cref="KeyShape"/>, for tests that address items by id and
/// partition key through the plain SDK (issue #34 encrypts both, so their values look like base64).
/// </summary>
public static class KeyAddressing
{
    /// <summary>The partition key paths of a shape.</summary>
    public static string[] Paths(KeyShape shape) => shape switch
    {
        KeyShape.Hash => ["/pk"],
        KeyShape.TwoLevels => ["/tenant", "/user"],
        _ => ["/tenant", "/user", "/session"],
    };

    /// <summary>Creates a container of that shape (hash version 2, so the bundled server gives it several ranges).</summary>
    public static async Task<Container> CreateContainerAsync(Database database, KeyShape shape, CancellationToken cancellationToken)
    {
        string id = "c-" + Guid.NewGuid().ToString("N");
        ContainerProperties properties = shape == KeyShape.Hash
            ? new ContainerProperties(id, "/pk")
            : new ContainerProperties(id, Paths(shape));
        properties.PartitionKeyDefinitionVersion = PartitionKeyDefinitionVersion.V2;
        return (await database.CreateContainerAsync(properties, cancellationToken: cancellationToken)).Container;
    }

    /// <summary>The SDK's partition key of these values (one per path, or fewer: a hierarchical key's prefix).</summary>
    public static PartitionKey Key(KeyShape shape, IReadOnlyList<string> values)
    {
        if (shape == KeyShape.Hash)
        {
            Assert.Single(values);
            return new PartitionKey(values[0]);
        }

        var builder = new PartitionKeyBuilder();
        foreach (string value in values)
        {
            builder.Add(value);
        }

        return builder.Build();
    }

    /// <summary>An item with that id and key values, and a counter <c>n</c>.</summary>
    public static JObject Item(KeyShape shape, string id, IReadOnlyList<string> values, int n = 0)
    {
        var item = new JObject { ["id"] = id, ["n"] = n };
        string[] paths = Paths(shape);
        Assert.Equal(paths.Length, values.Count);
        for (int i = 0; i < paths.Length; i++)
        {
            item[paths[i][1..]] = values[i];
        }

        return item;
    }

    /// <summary>The item's JSON as a stream, for the stream APIs.</summary>
    public static MemoryStream Stream(JObject item) => new(Encoding.UTF8.GetBytes(item.ToString(Newtonsoft.Json.Formatting.None)));

    /// <summary>The key values of a shape: <paramref name="first"/>, then values derived from it for the lower levels.</summary>
    public static string[] Values(KeyShape shape, string first, string? lower = null) => shape switch
    {
        KeyShape.Hash => [first],
        KeyShape.TwoLevels => [first, lower ?? "u"],
        _ => [first, lower ?? "u", "s-" + (lower ?? "u")],
    };

    /// <summary>Reads a stream answer's JSON body.</summary>
    public static JObject Body(ResponseMessage response)
    {
        using var reader = new StreamReader(response.Content);
        return JObject.Parse(reader.ReadToEnd());
    }

    /// <summary>
    /// Partition key values and ids that look like what issue #34's encryption writes (base64 and base64url) and
    /// values next to what Cosmos DB reserves: '+', '=', '-', '_', '%', spaces, quotes, Unicode outside the BMP.
    /// </summary>
    public static readonly string[] AwkwardValues =
    [
        "AgE+x/9=",
        "AgE-x_9",
        "AQID+/+/==",
        "日本語-ü-😀",
        "a b +=&;:@$,'\"",
        "back\\slash?and#hash",
        "",
    ];

    /// <summary>Ids as awkward as Cosmos DB allows (no '/', '\', '?', '#'; at most 255 characters).</summary>
    public static readonly string[] AwkwardIds =
    [
        "AgE+x9==",
        "AgE-x_9",
        "日本語-ü-😀",
        "a b +=&;:@$,'\"",
        new string('i', 255),
    ];
}

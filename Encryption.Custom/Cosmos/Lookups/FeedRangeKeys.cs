using System.Diagnostics.CodeAnalysis;
using System.Text.Json;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Lookups;

/// <summary>
/// Reads the components of a <see cref="PartitionKey"/> and of a feed range made from one, through the SDK's only
/// public view of them, their JSON text (<c>["a",1]</c>; a feed range <c>{"PK":"[\"a\"]"}</c>).
/// </summary>
internal static class FeedRangeKeys
{
    /// <summary>The components of <paramref name="partitionKey"/>; false for <see cref="PartitionKey.None"/> (no value) or an unknown text.</summary>
    public static bool TryReadComponents(PartitionKey partitionKey, [NotNullWhen(true)] out JsonElement[]? components)
    {
        components = null;
        if (partitionKey == PartitionKey.None)
        {
            return false;
        }

        using JsonDocument document = JsonDocument.Parse(partitionKey.ToString());
        if (document.RootElement.ValueKind != JsonValueKind.Array)
        {
            return false;
        }

        components = [.. document.RootElement.EnumerateArray().Select(e => e.Clone())];
        return true;
    }

    /// <summary>The partition key a feed range was made from (<see cref="FeedRange.FromPartitionKey"/>); false for a range of effective partition keys.</summary>
    public static bool TryGetPartitionKey(FeedRange feedRange, out PartitionKey partitionKey)
    {
        partitionKey = default;
        using JsonDocument document = JsonDocument.Parse(feedRange.ToJsonString());
        if (document.RootElement.ValueKind != JsonValueKind.Object || !document.RootElement.TryGetProperty("PK", out JsonElement text) || text.ValueKind != JsonValueKind.String)
        {
            return false;
        }

        using JsonDocument components = JsonDocument.Parse(text.GetString()!);
        JsonElement[] values = [.. components.RootElement.EnumerateArray()];
        if (values.Length == 1 && values[0].ValueKind == JsonValueKind.String)
        {
            partitionKey = new PartitionKey(values[0].GetString());
            return true;
        }

        var builder = new PartitionKeyBuilder();
        foreach (JsonElement value in values)
        {
            Add(builder, value);
        }

        partitionKey = builder.Build();
        return true;
    }

    /// <summary>Adds one component, as its JSON value says (an empty object is "none", the SDK's undefined).</summary>
    public static void Add(PartitionKeyBuilder builder, JsonElement value) =>
        _ = value.ValueKind switch
        {
            JsonValueKind.String => builder.Add(value.GetString()),
            JsonValueKind.Number => builder.Add(value.GetDouble()),
            JsonValueKind.True or JsonValueKind.False => builder.Add(value.GetBoolean()),
            JsonValueKind.Null => builder.AddNullValue(),
            _ => builder.AddNoneType(),
        };
}

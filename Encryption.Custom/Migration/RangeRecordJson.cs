using System.Text.Json;

namespace Encryption.Custom.Migration;

/// <summary>
/// The JSON parts a range's record is made of (<see cref="ContainerSurvey"/>'s survey records and
/// <see cref="VerificationRecord"/>'s): objects of counts written, and members read strictly. A member missing, of
/// another kind, or a count that is not a whole number of documents is a <see cref="FormatException"/> naming the
/// record and the member, never a value: the caller then scans the range again instead of trusting the record.
/// </summary>
internal static class RangeRecordJson
{
    /// <summary>Writes <paramref name="counts"/> as the object <paramref name="name"/>.</summary>
    public static void WriteCounts(Utf8JsonWriter writer, string name, IEnumerable<(string Key, long Count)> counts)
    {
        writer.WriteStartObject(name);
        foreach ((string key, long count) in counts)
        {
            writer.WriteNumber(key, count);
        }

        writer.WriteEndObject();
    }

    /// <summary>The object <paramref name="name"/> of <paramref name="part"/> as (name, count) pairs.</summary>
    public static IEnumerable<(string Name, long Count)> Counts(JsonElement part, string name, string record) =>
        Member(part, name, JsonValueKind.Object, record).EnumerateObject().Select(property => (property.Name, Whole(property.Value, name, record)));

    /// <summary>A count: a whole, non-negative number.</summary>
    public static long Whole(JsonElement value, string name, string record) =>
        value.ValueKind == JsonValueKind.Number && value.TryGetInt64(out long count) && count >= 0
            ? count
            : throw new FormatException($"A {record} record's '{name}' holds a count that is not a whole number of documents.");

    /// <summary>The member <paramref name="name"/> of <paramref name="part"/>, of the kind <paramref name="kind"/>.</summary>
    public static JsonElement Member(JsonElement part, string name, JsonValueKind kind, string record) =>
        part.ValueKind == JsonValueKind.Object && part.TryGetProperty(name, out JsonElement value) && value.ValueKind == kind
            ? value
            : throw new FormatException($"A {record} record has no '{name}' of the expected kind ({kind}).");
}

using System.Globalization;
using System.Text.Json;

namespace Encryption.Custom.Migration;

/// <summary>
/// A survey as a record other instances read (<see cref="SharedRangeScan"/>: one survey per feed range, written to the
/// job's lease container) and the merge of such records into the container's survey. Only counts, DEK ids and paths
/// are written: no value of any document. The merge of the surveys of ranges that cover the container once is the
/// survey of the whole container: every member is a sum over documents (a path's DEKs a union).
/// </summary>
internal sealed partial class ContainerSurvey
{
    // What the record's errors call it.
    private const string Record = "survey";

    /// <summary>Writes the counts as a JSON object.</summary>
    public void WriteTo(Utf8JsonWriter writer)
    {
        ArgumentNullException.ThrowIfNull(writer);
        writer.WriteStartObject();
        writer.WriteNumber("total", TotalDocuments);
        writer.WriteNumber("unencrypted", UnencryptedDocuments);
        writer.WriteNumber("unreadable", UnreadableDocuments);
        writer.WriteNumber("ru", RequestUnits);
        WriteCounts(writer, "byKey", _byKey);
        WriteCounts(writer, "byFormat", _byFormat.ToDictionary(pair => pair.Key.ToString(CultureInfo.InvariantCulture), pair => pair.Value));
        WriteCounts(writer, "withValues", _withValues);
        writer.WriteStartObject("paths");
        foreach ((string path, PathUse use) in _byPath)
        {
            writer.WriteStartObject(path);
            writer.WriteNumber("documents", use.Documents);
            writer.WriteNumber("deterministic", use.Deterministic);
            writer.WriteNumber("randomized", use.Randomized);
            writer.WriteStartArray("keys");
            foreach (string key in _pathKeys.GetValueOrDefault(path) ?? [])
            {
                writer.WriteStringValue(key);
            }

            writer.WriteEndArray();
            writer.WriteEndObject();
        }

        writer.WriteEndObject();
        writer.WriteEndObject();
    }

    /// <summary>
    /// The survey of ranges that together cover the container once: their sums, for <paramref name="target"/> (whose
    /// paths <see cref="DocumentsWithValues"/> lists even where no range found a value).
    /// </summary>
    /// <param name="parts">Each range's survey as written by <see cref="WriteTo"/>.</param>
    /// <param name="target">The target the ranges were surveyed for.</param>
    /// <exception cref="FormatException">A part is not a survey record (a member missing or of another type).</exception>
    public static ContainerSurvey Merge(IEnumerable<JsonElement> parts, ContainerEncryptionPolicy? target)
    {
        ArgumentNullException.ThrowIfNull(parts);
        var survey = new ContainerSurvey(target);
        foreach (JsonElement part in parts)
        {
            survey.Add(part);
        }

        return survey;
    }

    /// <summary>Whether <paramref name="part"/> reads back as a survey record (<see cref="Merge"/> would take it).</summary>
    public static bool IsRecord(JsonElement part)
    {
        try
        {
            new ContainerSurvey(null).Add(part);
            return true;
        }
        catch (FormatException)
        {
            return false;
        }
    }

    private void Add(JsonElement part)
    {
        if (part.ValueKind != JsonValueKind.Object)
        {
            throw new FormatException("A survey record is not a JSON object.");
        }

        TotalDocuments += Whole(part, "total");
        UnencryptedDocuments += Whole(part, "unencrypted");
        UnreadableDocuments += Whole(part, "unreadable");
        RequestUnits += Member(part, "ru", JsonValueKind.Number).GetDouble();
        foreach ((string key, long count) in Counts(part, "byKey"))
        {
            _byKey[key] = _byKey.GetValueOrDefault(key) + count;
        }

        foreach ((string format, long count) in Counts(part, "byFormat"))
        {
            int version = int.TryParse(format, NumberStyles.None, CultureInfo.InvariantCulture, out int parsed)
                ? parsed
                : throw new FormatException("A survey record's format version is not a whole number.");
            _byFormat[version] = _byFormat.GetValueOrDefault(version) + count;
        }

        foreach ((string path, long count) in Counts(part, "withValues"))
        {
            _withValues[path] = _withValues.GetValueOrDefault(path) + count;
        }

        foreach (JsonProperty path in Member(part, "paths", JsonValueKind.Object).EnumerateObject())
        {
            PathUse use = _byPath.GetValueOrDefault(path.Name);
            _byPath[path.Name] = new PathUse(
                use.Documents + Whole(path.Value, "documents"),
                use.Deterministic + Whole(path.Value, "deterministic"),
                use.Randomized + Whole(path.Value, "randomized"));
            if (!_pathKeys.TryGetValue(path.Name, out HashSet<string>? keys))
            {
                _pathKeys[path.Name] = keys = new HashSet<string>(StringComparer.Ordinal);
            }

            foreach (JsonElement key in Member(path.Value, "keys", JsonValueKind.Array).EnumerateArray())
            {
                keys.Add(key.ValueKind == JsonValueKind.String ? key.GetString()! : throw new FormatException("A survey record's DEK id is not a string."));
            }
        }
    }

    private static void WriteCounts<TKey>(Utf8JsonWriter writer, string name, Dictionary<TKey, long> counts)
        where TKey : notnull =>
        RangeRecordJson.WriteCounts(writer, name, counts.Select(pair => (Convert.ToString(pair.Key, CultureInfo.InvariantCulture)!, pair.Value)));

    private static IEnumerable<(string Name, long Count)> Counts(JsonElement part, string name) => RangeRecordJson.Counts(part, name, Record);

    private static long Whole(JsonElement part, string name) => RangeRecordJson.Whole(Member(part, name, JsonValueKind.Number), name, Record);

    private static JsonElement Member(JsonElement part, string name, JsonValueKind kind) => RangeRecordJson.Member(part, name, kind, Record);
}

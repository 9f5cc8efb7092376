using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;

namespace Encryption.Custom.Migration;

/// <summary>
/// One range's verification as a record other instances read (<see cref="SharedRangeScan"/>), and the merge of a round's
/// records into the container's verification. A range's record holds the status counts of its documents and, for each
/// document outside the target state, a hash of its id and partition key (never a value), so that each instance
/// judges them against its own reported failures as its own scan would (<see cref="UnexplainedSearch"/>): a document
/// another instance failed is not explained for this one. Documents outside the target state that cannot be named (not
/// readable as documents, or beyond <see cref="MaxNamed"/> in the range) count as unexplained for every instance.
/// </summary>
internal static class VerificationRecord
{
    /// <summary>The most documents outside the target state a range's record names (a hash each): bounds the record's size.</summary>
    public const int MaxNamed = 1_000;

    /// <summary>The hash a document outside the target state is named by: of its id and partition key (as the failures key them).</summary>
    public static string Name(string id, string partitionKey) =>
        Convert.ToHexStringLower(SHA256.HashData(Encoding.UTF8.GetBytes(id + "\n" + partitionKey)).AsSpan(0, 16));

    /// <summary>Writes one range's status and its documents outside the target state (<paramref name="outside"/>, <paramref name="unexplained"/> in all).</summary>
    public static void Write(Utf8JsonWriter writer, EncryptionMigrationStatus status, IReadOnlyList<StoredDocument> outside, long unexplained)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(status);
        ArgumentNullException.ThrowIfNull(outside);
        int named = Math.Min(outside.Count, MaxNamed);
        writer.WriteStartObject();
        writer.WriteNumber("total", status.TotalDocuments);
        writer.WriteNumber("inTarget", status.DocumentsInTargetState);
        writer.WriteNumber("unencrypted", status.UnencryptedDocuments);
        writer.WriteNumber("plaintext", status.PlaintextDocuments);
        writer.WriteNumber("otherPaths", status.DocumentsWithOtherPaths);
        writer.WriteNumber("unreadable", status.UnreadableDocuments);
        writer.WriteNumber("unlistedCipherText", status.DocumentsWithUnlistedCipherText);
        writer.WriteNumber("staleQueryTokens", status.DocumentsWithStaleQueryTokens);
        writer.WriteNumber("ru", status.RequestUnits);
        writer.WriteBoolean("typesChecked", status.EncryptionTypesChecked);
        WriteCounts(writer, "byKey", status.DocumentsByDataEncryptionKeyId.Select(pair => (pair.Key, pair.Value)));
        WriteCounts(writer, "byFormat", status.DocumentsByFormatVersion.Select(pair => (pair.Key.ToString(CultureInfo.InvariantCulture), pair.Value)));
        writer.WriteNumber("unnamed", Math.Max(0, unexplained - named));
        writer.WriteStartArray("outside");
        foreach (StoredDocument document in outside.Take(named))
        {
            writer.WriteStringValue(Name(document.Id, document.PartitionKey.ToString()));
        }

        writer.WriteEndArray();
        writer.WriteEndObject();
    }

    /// <summary>
    /// The container's status from a round's records, and its documents outside the target state that
    /// <paramref name="isExplained"/> does not explain (by name; the unnamed ones all count), per range index.
    /// </summary>
    /// <exception cref="FormatException">A record is not a verification record.</exception>
    public static (EncryptionMigrationStatus Status, long[] UnexplainedPerRange) Merge(IReadOnlyList<JsonElement> parts, Func<string, bool> isExplained)
    {
        ArgumentNullException.ThrowIfNull(parts);
        ArgumentNullException.ThrowIfNull(isExplained);
        long[] sums = new long[8];
        string[] members = ["total", "inTarget", "unencrypted", "plaintext", "otherPaths", "unreadable", "unlistedCipherText", "staleQueryTokens"];
        double requestUnits = 0;
        bool typesChecked = true;
        var byKey = new Dictionary<string, long>(StringComparer.Ordinal);
        var byFormat = new Dictionary<int, long>();
        long[] unexplained = new long[parts.Count];
        for (int index = 0; index < parts.Count; index++)
        {
            JsonElement part = parts[index];
            for (int member = 0; member < members.Length; member++)
            {
                sums[member] += Whole(Member(part, members[member], JsonValueKind.Number), members[member]);
            }

            requestUnits += Member(part, "ru", JsonValueKind.Number).GetDouble();
            typesChecked &= part.TryGetProperty("typesChecked", out JsonElement checkedTypes) && checkedTypes.ValueKind is JsonValueKind.True or JsonValueKind.False
                ? checkedTypes.GetBoolean()
                : throw new FormatException("A verification record has no 'typesChecked'.");
            foreach (JsonProperty key in Member(part, "byKey", JsonValueKind.Object).EnumerateObject())
            {
                byKey[key.Name] = byKey.GetValueOrDefault(key.Name) + Whole(key.Value, "byKey");
            }

            foreach (JsonProperty format in Member(part, "byFormat", JsonValueKind.Object).EnumerateObject())
            {
                int version = int.TryParse(format.Name, NumberStyles.None, CultureInfo.InvariantCulture, out int parsed) ? parsed : throw new FormatException("A verification record's format version is not a whole number.");
                byFormat[version] = byFormat.GetValueOrDefault(version) + Whole(format.Value, "byFormat");
            }

            unexplained[index] = Whole(Member(part, "unnamed", JsonValueKind.Number), "unnamed");
            foreach (JsonElement name in Member(part, "outside", JsonValueKind.Array).EnumerateArray())
            {
                string value = name.ValueKind == JsonValueKind.String ? name.GetString()! : throw new FormatException("A verification record names a document by something else than a string.");
                unexplained[index] += isExplained(value) ? 0 : 1;
            }
        }

        var status = new EncryptionMigrationStatus(sums[0], sums[1], byKey, sums[2], sums[3], sums[4], sums[5], requestUnits, typesChecked)
        {
            DocumentsWithUnlistedCipherText = sums[6],
            DocumentsWithStaleQueryTokens = sums[7],
            DocumentsByFormatVersion = byFormat,
        };
        return (status, unexplained);
    }

    /// <summary>Whether <paramref name="part"/> reads back as a verification record.</summary>
    public static bool IsRecord(JsonElement part)
    {
        try
        {
            Merge([part], _ => false);
            return true;
        }
        catch (FormatException)
        {
            return false;
        }
    }

    private static void WriteCounts(Utf8JsonWriter writer, string name, IEnumerable<(string Key, long Count)> counts) =>
        RangeRecordJson.WriteCounts(writer, name, counts);

    private static long Whole(JsonElement value, string name) => RangeRecordJson.Whole(value, name, "verification");

    private static JsonElement Member(JsonElement part, string name, JsonValueKind kind) => RangeRecordJson.Member(part, name, kind, "verification");
}

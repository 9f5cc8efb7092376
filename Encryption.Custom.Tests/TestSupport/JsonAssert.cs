using System.Globalization;
using System.Text;
using System.Text.Json;

namespace Encryption.Custom.Tests.TestSupport;

/// <summary>Semantic JSON comparison: objects as unordered maps, numbers by value (int64 exactly, else as doubles, sign of zero included).</summary>
public static class JsonAssert
{
    public static void Equivalent(string expected, string actual)
    {
        using JsonDocument expectedDocument = JsonDocument.Parse(expected);
        using JsonDocument actualDocument = JsonDocument.Parse(actual);
        string? difference = FindDifference(expectedDocument.RootElement, actualDocument.RootElement, "$");
        Assert.True(difference is null, $"JSON differs at {difference}");
    }

    public static void Equivalent(ReadOnlySpan<byte> expected, ReadOnlySpan<byte> actual) =>
        Equivalent(Encoding.UTF8.GetString(expected), Encoding.UTF8.GetString(actual));

    public static bool AreEquivalent(JsonElement expected, JsonElement actual) => FindDifference(expected, actual, "$") is null;

    private static string? FindDifference(JsonElement expected, JsonElement actual, string path)
    {
        if (expected.ValueKind != actual.ValueKind)
        {
            return $"{path}: {expected.ValueKind} vs {actual.ValueKind}";
        }

        switch (expected.ValueKind)
        {
            case JsonValueKind.Object:
                var expectedProperties = expected.EnumerateObject().ToList();
                var actualProperties = actual.EnumerateObject().ToDictionary(p => p.Name, p => p.Value, StringComparer.Ordinal);
                if (expectedProperties.Count != actualProperties.Count)
                {
                    return $"{path}: {expectedProperties.Count} properties vs {actualProperties.Count}";
                }

                foreach (JsonProperty property in expectedProperties)
                {
                    if (!actualProperties.TryGetValue(property.Name, out JsonElement value))
                    {
                        return $"{path}.{property.Name}: missing";
                    }

                    string? difference = FindDifference(property.Value, value, path + "." + property.Name);
                    if (difference is not null)
                    {
                        return difference;
                    }
                }

                return null;

            case JsonValueKind.Array:
                if (expected.GetArrayLength() != actual.GetArrayLength())
                {
                    return $"{path}: array lengths {expected.GetArrayLength()} vs {actual.GetArrayLength()}";
                }

                for (int i = 0; i < expected.GetArrayLength(); i++)
                {
                    string? difference = FindDifference(expected[i], actual[i], $"{path}[{i}]");
                    if (difference is not null)
                    {
                        return difference;
                    }
                }

                return null;

            case JsonValueKind.String:
                return expected.GetString() == actual.GetString() ? null : $"{path}: strings differ";

            case JsonValueKind.Number:
                if (expected.TryGetInt64(out long expectedLong) && actual.TryGetInt64(out long actualLong))
                {
                    return expectedLong == actualLong ? null : $"{path}: {expectedLong} vs {actualLong}";
                }

                // Parsed by the BCL: JsonElement.GetDouble is off by one ulp for some literals.
                double expectedDouble = double.Parse(expected.GetRawText(), NumberStyles.Float, CultureInfo.InvariantCulture);
                double actualDouble = double.Parse(actual.GetRawText(), NumberStyles.Float, CultureInfo.InvariantCulture);
                return BitConverter.DoubleToInt64Bits(expectedDouble) == BitConverter.DoubleToInt64Bits(actualDouble)
                    ? null
                    : $"{path}: {expected.GetRawText()} vs {actual.GetRawText()}";

            default:
                return null;
        }
    }
}

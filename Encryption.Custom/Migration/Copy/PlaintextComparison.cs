using System.Globalization;
using System.Text.Json;

namespace Encryption.Custom.Migration.Copy;

/// <summary>
/// Whether a target document holds the same application data as its source: both plaintext (decrypted in memory),
/// compared as JSON values, ignoring the properties the service sets (<see cref="SystemProperties"/>), the order of
/// an object's members and how a number is spelled (<c>1.50</c> and <c>1.5</c>: a value that went through
/// encryption comes back written by the value codec, not as the source spelled it). Arrays keep their order.
/// </summary>
/// <remarks>
/// Numbers compare as the service keeps them (IEEE doubles), strings ordinally; a document whose member appears
/// twice is compared by its last occurrence, as System.Text.Json's object binding does.
/// </remarks>
internal static class PlaintextComparison
{
    private static readonly HashSet<string> s_systemProperties = new(StringComparer.Ordinal) { "_rid", "_self", "_etag", "_attachments", "_ts", "_lsn" };

    /// <summary>Whether <paramref name="source"/> and <paramref name="target"/> hold the same application data.</summary>
    /// <exception cref="EncryptionException">Either is not a JSON object (<see cref="EncryptionErrorKind.MalformedDocument"/>); the message quotes neither.</exception>
    public static bool SameDocument(ReadOnlySpan<byte> source, ReadOnlySpan<byte> target)
    {
        using JsonDocument left = Parse(source);
        using JsonDocument right = Parse(target);
        return SameMembers(left.RootElement, right.RootElement, skipSystem: true);
    }

    private static JsonDocument Parse(ReadOnlySpan<byte> json)
    {
        try
        {
            var reader = new Utf8JsonReader(json, new JsonReaderOptions { MaxDepth = EncryptionProcessorOptions.MaxAllowedDepth });
            JsonDocument document = JsonDocument.ParseValue(ref reader);
            if (document.RootElement.ValueKind == JsonValueKind.Object)
            {
                return document;
            }

            document.Dispose();
        }
        catch (JsonException)
        {
            // The reader's message quotes document characters: never pass it on.
        }

        throw new EncryptionException(EncryptionErrorKind.MalformedDocument, "A document to compare is not a valid JSON object.");
    }

    private static bool Same(JsonElement left, JsonElement right) => (left.ValueKind, right.ValueKind) switch
    {
        (JsonValueKind.Object, JsonValueKind.Object) => SameMembers(left, right, skipSystem: false),
        (JsonValueKind.Array, JsonValueKind.Array) => SameItems(left, right),
        (JsonValueKind.String, JsonValueKind.String) => string.Equals(left.GetString(), right.GetString(), StringComparison.Ordinal),
        (JsonValueKind.Number, JsonValueKind.Number) => SameNumber(left, right),
        var (a, b) => a == b && a is JsonValueKind.True or JsonValueKind.False or JsonValueKind.Null,
    };

    private static bool SameNumber(JsonElement left, JsonElement right) =>
        double.Parse(left.GetRawText(), NumberStyles.Float, CultureInfo.InvariantCulture).Equals(double.Parse(right.GetRawText(), NumberStyles.Float, CultureInfo.InvariantCulture));

    private static bool SameItems(JsonElement left, JsonElement right)
    {
        if (left.GetArrayLength() != right.GetArrayLength())
        {
            return false;
        }

        using JsonElement.ArrayEnumerator a = left.EnumerateArray();
        using JsonElement.ArrayEnumerator b = right.EnumerateArray();
        while (a.MoveNext() && b.MoveNext())
        {
            if (!Same(a.Current, b.Current))
            {
                return false;
            }
        }

        return true;
    }

    private static bool SameMembers(JsonElement left, JsonElement right, bool skipSystem)
    {
        Dictionary<string, JsonElement> a = Members(left, skipSystem);
        Dictionary<string, JsonElement> b = Members(right, skipSystem);
        if (a.Count != b.Count)
        {
            return false;
        }

        foreach ((string name, JsonElement value) in a)
        {
            if (!b.TryGetValue(name, out JsonElement other) || !Same(value, other))
            {
                return false;
            }
        }

        return true;
    }

    private static Dictionary<string, JsonElement> Members(JsonElement element, bool skipSystem)
    {
        var members = new Dictionary<string, JsonElement>(StringComparer.Ordinal);
        foreach (JsonProperty property in element.EnumerateObject())
        {
            if (!(skipSystem && s_systemProperties.Contains(property.Name)))
            {
                members[property.Name] = property.Value;
            }
        }

        return members;
    }
}

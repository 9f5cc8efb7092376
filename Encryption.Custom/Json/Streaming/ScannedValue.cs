using System.Text.Json;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Values;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// A top-level value the document scan recorded, classified by the one mapping (<see cref="PlainValue"/>) from its own
/// bytes. The scan has already judged the value well-formed and within the depth limit, so no reader reads it again:
/// before, a number or a container was read a second time by <see cref="Utf8JsonReader"/>, which for a large object
/// (Published 1 MB: one object of about 20,000 entries) was a second pass over the whole value at the reader's
/// per-token cost. Both sinks (<see cref="CellWriter"/>, <see cref="ValueBatch"/>) classify through here, and encrypt
/// a container the fast scan saw without whitespace between its tokens (<see cref="PropertyRecord.ValueCompact"/>)
/// from its bytes as they are: before, every container with a space inside a string (any text) was compacted,
/// a search for the end of each of its strings (Published 1 MB: about 14 % of the encryption).
/// </summary>
internal static class ScannedValue
{
    /// <summary>Classifies the value of <paramref name="property"/>, encrypted under path <paramref name="pathIndex"/>.</summary>
    /// <param name="document">The whole document.</param>
    /// <param name="property">The scanned property (not null: nulls are copied, never encrypted).</param>
    /// <param name="plan">The plan.</param>
    /// <param name="pathIndex">The path the value is encrypted under.</param>
    /// <param name="scalar">Receives a number's or a boolean's plaintext (<see cref="ScalarEncoding.Length"/> bytes).</param>
    /// <param name="text">
    /// A string's content as written (between the quotes, escapes and all), or a container's JSON text as written
    /// (whitespace and all); empty for a scalar.
    /// </param>
    /// <returns>The marker: a scalar's plaintext is in <paramref name="scalar"/>, a string's or container's is made from <paramref name="text"/>.</returns>
    /// <exception cref="EncryptionException">What <see cref="PlainValue"/> refuses, naming the path.</exception>
    public static TypeMarker Classify(ReadOnlySpan<byte> document, in PropertyRecord property, EncryptionPlan plan, int pathIndex, Span<byte> scalar, out ReadOnlySpan<byte> text)
    {
        text = document[property.ValueStart..property.ValueEnd];
        switch (property.ValueType)
        {
            case JsonTokenType.String:
                text = text[1..^1];
                return TypeMarker.String;

            case JsonTokenType.True:
            case JsonTokenType.False:
                text = default;
                return PlainValue.Boolean(property.ValueType == JsonTokenType.True, scalar);

            case JsonTokenType.Number:
                TypeMarker number = PlainValue.Number(text, scalar, plan.GetPath(pathIndex));
                text = default;
                return number;

            case JsonTokenType.StartObject:
            case JsonTokenType.StartArray:
                return PlainValue.Container(
                    property.ValueType == JsonTokenType.StartObject,
                    !plan.GetDeterministicPrefix(pathIndex).IsEmpty,
                    plan.GetPath(pathIndex),
                    plan.DataEncryptionKeyId);

            default:
                // Not a value the scan records for encryption (a null is copied): refused, never passed through.
                JsonErrors.ThrowUnsupportedValue(plan.GetPath(pathIndex));
                return default;
        }
    }
}

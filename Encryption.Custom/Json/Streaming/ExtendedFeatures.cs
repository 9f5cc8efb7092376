using System.Text.Json;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// Reads the feature list <c>_ev</c> of a format 101 document, <c>{"v":1,"crit":["sel"]}</c>, with the rules of
/// <see cref="ExtendedEnvelope"/>: a version or a critical feature this library does not know refuses the document.
/// Members other than <c>v</c> and <c>crit</c> are ignored (what a reader must understand is listed in <c>crit</c>).
/// </summary>
internal static class ExtendedFeatures
{
    /// <summary>Checks <paramref name="json"/> (the value of <c>_ev</c>).</summary>
    /// <returns>The known features <c>crit</c> requires.</returns>
    /// <exception cref="EncryptionException">Malformed (<see cref="EncryptionErrorKind.MalformedDocument"/>) or unsupported (<see cref="EncryptionErrorKind.UnsupportedFormat"/>).</exception>
    public static ExtendedFeatureSet Read(ReadOnlySpan<byte> json)
    {
        // The envelope's syntax and depth were validated by the scan.
        var reader = new Utf8JsonReader(json, new JsonReaderOptions { MaxDepth = 1000 });
        reader.Read();
        if (reader.TokenType != JsonTokenType.StartObject)
        {
            JsonErrors.ThrowMalformedEnvelope("'_ev' must be an object.");
        }

        bool hasVersion = false;
        bool hasCritical = false;
        ExtendedFeatureSet selectors = ExtendedFeatureSet.None;
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            bool isVersion = reader.ValueTextEquals("v"u8);
            bool isCritical = !isVersion && reader.ValueTextEquals("crit"u8);
            reader.Read();
            if (isVersion)
            {
                if (hasVersion)
                {
                    JsonErrors.ThrowMalformedEnvelope("'_ev.v' appears more than once.");
                }

                if (reader.TokenType != JsonTokenType.Number || !reader.TryGetInt64(out long version))
                {
                    JsonErrors.ThrowMalformedEnvelope("'_ev.v' must be an integer.");
                    return ExtendedFeatureSet.None;
                }

                // Checked at once: a later version may mean anything by the rest.
                ExtendedEnvelope.CheckFeaturesVersion(version);
                hasVersion = true;
            }
            else if (isCritical)
            {
                if (hasCritical)
                {
                    JsonErrors.ThrowMalformedEnvelope("'_ev.crit' appears more than once.");
                }

                hasCritical = true;
                selectors = ReadCritical(ref reader);
            }
            else
            {
                reader.Skip();
            }
        }

        if (!hasVersion || !hasCritical)
        {
            JsonErrors.ThrowMalformedEnvelope(hasVersion ? "'_ev.crit' is missing." : "'_ev.v' is missing.");
        }

        return selectors;
    }

    private static ExtendedFeatureSet ReadCritical(ref Utf8JsonReader reader)
    {
        if (reader.TokenType != JsonTokenType.StartArray)
        {
            JsonErrors.ThrowMalformedEnvelope("'_ev.crit' must be an array of feature names.");
        }

        var selectors = ExtendedFeatureSet.None;
        Span<byte> name = stackalloc byte[64];
        while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
        {
            if (reader.TokenType != JsonTokenType.String)
            {
                JsonErrors.ThrowMalformedEnvelope("'_ev.crit' must be an array of feature names.");
            }

            // Longer than any known feature: unknown (its name is not echoed in full).
            int length = reader.ValueSpan.Length <= name.Length ? JsonStringUnescaper.CopyString(ref reader, name) : -1;
            selectors |= ExtendedEnvelope.CheckCriticalFeature(length < 0 ? reader.ValueSpan[..name.Length] : name[..length]);
        }

        return selectors;
    }
}

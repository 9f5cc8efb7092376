using System.Buffers;
using System.Text.Json;

namespace Encryption.Custom.Migration;

/// <summary>
/// Removes the properties the service adds to every stored document (<c>_rid</c>, <c>_self</c>, <c>_etag</c>,
/// <c>_attachments</c>, <c>_ts</c>, and <c>_lsn</c> on change feed pages) before a document is written back: the
/// service sets them itself, and a change feed's <c>_lsn</c> written back would be kept as a user property.
/// Everything else, <c>_ei</c> included, is copied byte for byte in order.
/// </summary>
internal static class SystemProperties
{
    private static readonly byte[][] s_names = ["_rid"u8.ToArray(), "_self"u8.ToArray(), "_etag"u8.ToArray(), "_attachments"u8.ToArray(), "_ts"u8.ToArray(), "_lsn"u8.ToArray()];

    /// <summary>Writes <paramref name="document"/> without the system properties to <paramref name="output"/>.</summary>
    /// <exception cref="EncryptionException">The document is not a valid JSON object (<see cref="EncryptionErrorKind.MalformedDocument"/>).</exception>
    public static void CopyWithout(ReadOnlySpan<byte> document, IBufferWriter<byte> output)
    {
        try
        {
            var reader = new Utf8JsonReader(document, new JsonReaderOptions { MaxDepth = EncryptionProcessorOptions.MaxAllowedDepth });
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                throw Malformed();
            }

            output.Write("{"u8);
            bool first = true;
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                int nameStart = (int)reader.TokenStartIndex;
                bool drop = IsSystem(ref reader);
                reader.Read();
                reader.Skip();
                int valueEnd = (int)reader.BytesConsumed;
                if (drop)
                {
                    continue;
                }

                if (!first)
                {
                    output.Write(","u8);
                }

                first = false;

                // From the name's opening quote to the value's end: the name, the colon (and any white space), the value.
                output.Write(document[nameStart..valueEnd]);
            }

            output.Write("}"u8);
        }
        catch (JsonException)
        {
            // The reader's message quotes document characters: never pass it on.
            throw Malformed();
        }
    }

    private static bool IsSystem(ref Utf8JsonReader reader)
    {
        foreach (byte[] name in s_names)
        {
            if (reader.ValueTextEquals(name))
            {
                return true;
            }
        }

        return false;
    }

    private static EncryptionException Malformed() =>
        new(EncryptionErrorKind.MalformedDocument, "The stored document is not a valid JSON object.");
}

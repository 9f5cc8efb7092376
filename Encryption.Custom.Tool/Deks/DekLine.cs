using System.Buffers;
using System.Globalization;
using System.Text.Encodings.Web;
using System.Text.Json;

namespace Encryption.Custom.Tool.Deks;

/// <summary>
/// One DEK as one line of JSON, as create-dek, rewrap-dek and list-deks print it:
/// <c>{"id":…,"algorithm":…,"kek":{"type":…,"name":…,"value":…,"algorithm":…},"created":…,"modified":…}</c>.
/// The wrapped key is left out on purpose: it is no secret without the KEK, but nobody needs it on a terminal or in
/// a log, and leaving it out means no key bytes of any kind are ever printed.
/// </summary>
internal static class DekLine
{
    private static readonly JsonWriterOptions s_writerOptions = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    /// <summary>Appends the line (with its final newline) to <paramref name="output"/>.</summary>
    public static void Write(DataEncryptionKeyProperties dek, IBufferWriter<byte> output)
    {
        using (var writer = new Utf8JsonWriter(output, s_writerOptions))
        {
            writer.WriteStartObject();
            writer.WriteString("id", dek.Id);
            writer.WriteString("algorithm", dek.EncryptionAlgorithm);
            writer.WriteStartObject("kek");
            EncryptionKeyWrapMetadata kek = dek.EncryptionKeyWrapMetadata;
            writer.WriteString("type", kek.Type);
            WriteOptional(writer, "name", kek.Name);
            writer.WriteString("value", kek.Value);
            WriteOptional(writer, "algorithm", kek.Algorithm);
            writer.WriteEndObject();
            WriteOptional(writer, "created", dek.CreatedTime?.ToString("O", CultureInfo.InvariantCulture));
            WriteOptional(writer, "modified", dek.LastModified?.ToString("O", CultureInfo.InvariantCulture));
            writer.WriteEndObject();
        }

        output.Write("\n"u8);
    }

    private static void WriteOptional(Utf8JsonWriter writer, string name, string? value)
    {
        if (value is null)
        {
            writer.WriteNull(name);
        }
        else
        {
            writer.WriteString(name, value);
        }
    }
}

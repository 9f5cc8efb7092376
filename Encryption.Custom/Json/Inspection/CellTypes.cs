using System.Buffers.Text;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Json.Inspection;

/// <summary>Tells how one listed value is encrypted (<see cref="InspectedCellType"/>); shared by both inspectors.</summary>
internal static class CellTypes
{
    // base64(marker ‖ version ‖ …): the version byte is the second decoded byte (wire-format.md, "Bound cells").
    private const byte BoundCellVersion = 0x02;

    /// <summary>The type of the unescaped base64 content of a listed value at the top-level path <paramref name="path"/>.</summary>
    /// <param name="stored">The string's content, unescaped, as stored.</param>
    /// <param name="path">The listed path (<c>/name</c>), whose deterministic IV is recomputed.</param>
    /// <param name="key">The key the document names, or <see langword="null"/> to leave an unbound cell unchecked.</param>
    /// <param name="keyId">Its id (for the error).</param>
    /// <param name="error">Why the value is <see cref="InspectedCellType.NotAuthentic"/>; else <see langword="null"/>.</param>
    public static InspectedCellType Classify(ReadOnlySpan<byte> stored, string path, DataEncryptionKey? key, string keyId, out EncryptionException? error)
    {
        error = null;
        Span<byte> idText = stackalloc byte[IdCellText.StandardScratchLength];
        ReadOnlySpan<byte> base64 = IdCellText.ForCodec(path, stored, idText);
        Span<byte> head = stackalloc byte[3];
        if (base64.Length >= 4 && Base64.DecodeFromUtf8(base64[..4], head, out _, out int written) == System.Buffers.OperationStatus.Done
            && written >= 2 && head[1] == BoundCellVersion)
        {
            return InspectedCellType.Bound;
        }

        if (key is null)
        {
            return InspectedCellType.Unchecked;
        }

        EncryptedValueStatus status = EncryptedValueCodec.TryCheckDeterministic(key, base64, DeterministicIvContext.CreatePathPrefix(path), out bool deterministic);
        if (status != EncryptedValueStatus.Valid)
        {
            error = JsonErrors.CreateInvalidValue(status, path, keyId);
            return InspectedCellType.NotAuthentic;
        }

        return deterministic ? InspectedCellType.Deterministic : InspectedCellType.Randomized;
    }

    /// <summary>The <c>_ef</c> value of a resolved format.</summary>
    public static int FormatVersion(EnvelopeFormat format) => format switch
    {
        EnvelopeFormat.LegacyBlob => EncryptionEnvelope.LegacyFormatVersion,
        EnvelopeFormat.Extended => EncryptionEnvelope.ExtendedFormatVersion,
        _ => EncryptionEnvelope.CurrentFormatVersion,
    };
}

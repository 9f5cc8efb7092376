using System.Buffers;
using System.Text;
using System.Text.Json;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// The second step of decryption, per document: reads its <c>_ei</c> metadata (wire-format.md §3.1), resolves the
/// format, and matches each <c>_ep</c> path to the property it names. Everything here concerns one document, so
/// inside a feed page its errors can be reported for that document alone.
/// </summary>
internal static partial class EnvelopeReader
{
    /// <summary>
    /// Reads only the metadata of one document, with exactly the rules decryption applies (the scan and
    /// <see cref="Prepare"/>), and decrypts nothing: the one reader of <c>_ei</c> besides the processors' own
    /// decryption, for patch, batch and telemetry (migration and the tool's <c>inspect</c> use <c>Json/Inspection/</c>).
    /// </summary>
    /// <returns>The metadata, or <see langword="null"/> when the document is not encrypted (no <c>_ei</c>, or <c>_ei: null</c>).</returns>
    /// <exception cref="EncryptionException">
    /// Malformed JSON or metadata, a root that is not an object, an unsupported format or algorithm, a listed value
    /// that is not a string, or a document deeper than <paramref name="maxDepth"/>.
    /// </exception>
    public static EnvelopeMetadata? ReadMetadata(ReadOnlySpan<byte> document, int maxDepth)
    {
        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            DocumentScanner.ScanDocument(document, scan, maxDepth);
            ref DocumentRecord record = ref scan.Documents[0];
            if (!Prepare(document, scan, ref record))
            {
                return null;
            }

            var paths = new List<string>(scan.PathCount);
            for (int i = 0; i < scan.PathCount; i++)
            {
                paths.Add("/" + Encoding.UTF8.GetString(scan.GetPathName(scan.Paths[i])));
            }

            // Format 101: the nested selectors after the top-level paths (the anchor is not a path).
            paths.AddRange(record.Selectors?.Texts ?? []);
            int formatVersion = record.Format switch
            {
                EnvelopeFormat.LegacyBlob => EncryptionEnvelope.LegacyFormatVersion,
                EnvelopeFormat.Extended => EncryptionEnvelope.ExtendedFormatVersion,
                _ => EncryptionEnvelope.CurrentFormatVersion,
            };
            return EnvelopeMetadata.Create(formatVersion, record.KeyId!, record.Algorithm!, paths);
        }
        finally
        {
            DecryptionScan.Return(scan);
        }
    }

    /// <summary>Prepares <paramref name="document"/> for decryption.</summary>
    /// <returns><see langword="false"/> when the document is not encrypted (no <c>_ei</c>, or <c>_ei: null</c>).</returns>
    /// <exception cref="EncryptionException">The metadata is malformed or unsupported, or a listed value is not a string.</exception>
    public static bool Prepare(ReadOnlySpan<byte> input, DecryptionScan scan, ref DocumentRecord document)
    {
        if (document.EnvelopeProperty < 0)
        {
            return false;
        }

        if (document.DuplicateEnvelope)
        {
            JsonErrors.ThrowMalformedEnvelope("it appears more than once.");
        }

        ref PropertyRecord envelope = ref scan.Properties[document.EnvelopeProperty];
        if (envelope.ValueType == JsonTokenType.Null)
        {
            return false;
        }

        if (envelope.ValueType != JsonTokenType.StartObject)
        {
            JsonErrors.ThrowMalformedEnvelope("it must be an object.");
        }

        scan.ResetPaths();
        ReadEnvelope(input, envelope.ValueStart, envelope.ValueEnd, scan, ref document);
        if (document.Format is EnvelopeFormat.PerProperty or EnvelopeFormat.Extended)
        {
            MatchPaths(input, scan, document);
        }

        if (document.Format == EnvelopeFormat.Extended)
        {
            CheckAnchor(input, scan, document);
        }

        return true;
    }

    // The members of _ei this library knows, in the order they are interpreted: the format first, so that a format
    // it does not know yet is reported as unsupported whatever the rest of the envelope looks like.
    private const int FormatMember = 0;
    private const int KeyIdMember = 1;
    private const int AlgorithmMember = 2;
    private const int EncryptedDataMember = 3;
    private const int PathsMember = 4;
    private const int FeaturesMember = 5;
    private const int MemberCount = 6;

    private static void ReadEnvelope(ReadOnlySpan<byte> input, int start, int end, DecryptionScan scan, ref DocumentRecord document)
    {
        // One pass records where each known member's value lies (relative to the envelope) and refuses repeats,
        // which a DOM would resolve differently (last wins, or an error).
        Span<int> starts = stackalloc int[MemberCount];
        Span<int> ends = stackalloc int[MemberCount];
        starts.Fill(-1);
        ReadOnlySpan<byte> envelope = input[start..end];

        // The scan validated this object's syntax and depth already.
        var reader = new Utf8JsonReader(envelope, new JsonReaderOptions { MaxDepth = 1000 });
        reader.Read();
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            int member = IdentifyMember(ref reader);
            reader.Read();
            int valueStart = (int)reader.TokenStartIndex;
            reader.Skip();
            if (member < 0)
            {
                // Unknown fields are ignored (forward compatibility within a known format version).
                continue;
            }

            if (starts[member] >= 0)
            {
                JsonErrors.ThrowMalformedEnvelope($"'{MemberName(member)}' appears more than once.");
            }

            starts[member] = valueStart;
            ends[member] = (int)reader.BytesConsumed;
        }

        long formatVersion = ReadFormatVersion(envelope, starts[FormatMember], ends[FormatMember]);
        EncryptionEnvelope.CheckFormatVersion(formatVersion);

        if (starts[KeyIdMember] < 0)
        {
            JsonErrors.ThrowMalformedEnvelope("'_en' is missing.");
        }

        reader = MemberReader(envelope, starts[KeyIdMember], ends[KeyIdMember]);
        if (reader.TokenType != JsonTokenType.String)
        {
            JsonErrors.ThrowMalformedEnvelope("'_en' must be a string.");
        }

        document.KeyId = ReadKeyId(ref reader);

        if (starts[AlgorithmMember] < 0)
        {
            JsonErrors.ThrowMalformedEnvelope("'_ea' is missing.");
        }

        if (envelope[starts[AlgorithmMember]] != (byte)'"')
        {
            JsonErrors.ThrowMalformedEnvelope("'_ea' must be a string.");
        }

        document.Algorithm = ReadAlgorithm(envelope[starts[AlgorithmMember]..ends[AlgorithmMember]], formatVersion);
        document.Format = EncryptionEnvelope.ResolveFormat(formatVersion, document.Algorithm);
        bool extended = document.Format == EnvelopeFormat.Extended;
        document.Bound = false;
        document.Committed = false;
        document.HasQueryTokens = false;
        var features = ExtendedFeatureSet.None;
        if (extended)
        {
            // Before anything else of the document is trusted: a feature this reader lacks refuses the document.
            if (starts[FeaturesMember] < 0)
            {
                JsonErrors.ThrowMalformedEnvelope("'_ev' is missing for format version 101.");
            }

            features = ExtendedFeatures.Read(envelope[starts[FeaturesMember]..ends[FeaturesMember]]);
            ExtendedEnvelope.CheckCommitNeedsBind(features);
        }
        if (starts[EncryptedDataMember] >= 0)
        {
            reader = MemberReader(envelope, starts[EncryptedDataMember], ends[EncryptedDataMember]);
            if (reader.TokenType == JsonTokenType.String)
            {
                document.EncryptedDataStart = start + starts[EncryptedDataMember];
                document.EncryptedDataEnd = start + ends[EncryptedDataMember];
                document.EncryptedDataEscaped = reader.ValueIsEscaped;
            }
            else if (reader.TokenType != JsonTokenType.Null)
            {
                JsonErrors.ThrowMalformedEnvelope("'_ed' must be a string or null.");
            }
        }

        bool hasPaths = starts[PathsMember] >= 0;
        if (hasPaths)
        {
            reader = MemberReader(envelope, starts[PathsMember], ends[PathsMember]);
            ReadPaths(ref reader, scan, extended);
        }

        if (hasPaths)
        {
            ExtendedEnvelope.CheckIdFeature(features, scan.PathTable.Find(EncryptionEnvelope.IdNameUtf8) >= 0);
        }

        if (extended)
        {
            if (!hasPaths)
            {
                JsonErrors.ThrowMalformedEnvelope("'_ep' is missing.");
            }

            ReadOnlySpan<byte> selectors = scan.Selectors;
            if (!selectors.IsEmpty && (features & ExtendedFeatureSet.Selectors) == 0)
            {
                JsonErrors.ThrowMalformedEnvelope("'_ep' lists nested selectors but '_ev.crit' does not require the feature 'sel'.");
            }

            document.Selectors = selectors.IsEmpty ? null : DocumentSelectors.Get(selectors);
            document.Bound = (features & ExtendedFeatureSet.Bind) != 0;
            document.Committed = (features & ExtendedFeatureSet.Commit) != 0;
            document.HasQueryTokens = (features & ExtendedFeatureSet.QueryTokens) != 0;
            if (document.HasQueryTokens && (document.QueryTokensProperty < 0 || document.DuplicateQueryTokens))
            {
                JsonErrors.ThrowMalformedEnvelope("'_ev.crit' requires query tokens ('qt') but the document does not have exactly one '_q' member.");
            }
            for (int i = 0; document.Selectors is not null && i < scan.PathCount; i++)
            {
                if (document.Selectors.Root.FindChild(scan.GetPathName(scan.Paths[i])) >= 0)
                {
                    JsonErrors.ThrowMalformedEnvelope("'_ep' lists a top-level path that nested selectors start at: selectors must not contain one another.");
                }
            }
        }

        if (document.Format == EnvelopeFormat.PerProperty && !hasPaths)
        {
            JsonErrors.ThrowMalformedEnvelope("'_ep' is missing.");
        }

        if (document.Format == EnvelopeFormat.LegacyBlob && document.EncryptedDataStart < 0)
        {
            JsonErrors.ThrowMalformedEnvelope("'_ed' is missing for format version 2.");
        }
    }

    private static int IdentifyMember(ref Utf8JsonReader reader) =>
        reader.ValueTextEquals(EncryptionEnvelope.FormatVersionNameUtf8) ? FormatMember
        : reader.ValueTextEquals(EncryptionEnvelope.KeyIdNameUtf8) ? KeyIdMember
        : reader.ValueTextEquals(EncryptionEnvelope.AlgorithmNameUtf8) ? AlgorithmMember
        : reader.ValueTextEquals(EncryptionEnvelope.EncryptedDataNameUtf8) ? EncryptedDataMember
        : reader.ValueTextEquals(EncryptionEnvelope.PathsNameUtf8) ? PathsMember
        : reader.ValueTextEquals(EncryptionEnvelope.FeaturesNameUtf8) ? FeaturesMember
        : -1;

    private static string MemberName(int member) => member switch
    {
        FormatMember => EncryptionEnvelope.FormatVersionName,
        KeyIdMember => EncryptionEnvelope.KeyIdName,
        AlgorithmMember => EncryptionEnvelope.AlgorithmName,
        EncryptedDataMember => EncryptionEnvelope.EncryptedDataName,
        FeaturesMember => EncryptionEnvelope.FeaturesName,
        _ => EncryptionEnvelope.PathsName,
    };

    // A reader positioned on one member's value (a complete JSON value on its own).
    private static Utf8JsonReader MemberReader(ReadOnlySpan<byte> envelope, int start, int end)
    {
        var reader = new Utf8JsonReader(envelope[start..end], new JsonReaderOptions { MaxDepth = 1000 });
        reader.Read();
        return reader;
    }

    private static long ReadFormatVersion(ReadOnlySpan<byte> envelope, int start, int end)
    {
        if (start < 0)
        {
            JsonErrors.ThrowMalformedEnvelope("'_ef' is missing.");
        }

        Utf8JsonReader reader = MemberReader(envelope, start, end);
        if (reader.TokenType != JsonTokenType.Number || !reader.TryGetInt64(out long formatVersion))
        {
            JsonErrors.ThrowMalformedEnvelope("'_ef' must be an integer.");
            return 0;
        }

        return formatVersion;
    }

    private static string ReadKeyId(ref Utf8JsonReader reader)
    {
        if (!reader.ValueIsEscaped)
        {
            if (reader.ValueSpan.IsEmpty)
            {
                JsonErrors.ThrowMalformedEnvelope("'_en' must not be empty.");
            }

            return DataEncryptionKeyIdCache.GetId(reader.ValueSpan);
        }

        byte[] rented = ArrayPool<byte>.Shared.Rent(reader.ValueSpan.Length);
        try
        {
            int length = JsonStringUnescaper.CopyString(ref reader, rented);
            if (length == 0)
            {
                JsonErrors.ThrowMalformedEnvelope("'_en' must not be empty.");
            }

            return DataEncryptionKeyIdCache.GetId(rented.AsSpan(0, length));
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(rented);
        }
    }

    private static string ReadAlgorithm(ReadOnlySpan<byte> quotedToken, long formatVersion)
    {
        var reader = new Utf8JsonReader(quotedToken);
        reader.Read();
        Span<byte> name = stackalloc byte[64];
        if (reader.ValueSpan.Length <= name.Length)
        {
            int length = JsonStringUnescaper.CopyString(ref reader, name);
            if (EncryptionEnvelope.TryGetAlgorithm(name[..length], out string? algorithm))
            {
                return algorithm;
            }
        }

        JsonErrors.ThrowUnsupportedAlgorithm(reader.GetString() ?? string.Empty, formatVersion);
        return null;
    }
}

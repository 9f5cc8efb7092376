using System.Runtime.CompilerServices;
using System.Text.Json;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// The first pass of decryption: walks the input once with <see cref="Utf8JsonReader"/> and records where every
/// top-level property of each document lies (and where <c>_ei</c> is: it comes last, so the key is known only
/// after the scan). Feed pages are scanned the same way, each element of <c>Documents</c> being a document.
/// </summary>
/// <remarks>Only JSON syntax and depth errors are thrown here; they make the whole input unusable.</remarks>
internal static class DocumentScanner
{
    /// <summary>The property of a query or change-feed response that holds the documents.</summary>
    private static ReadOnlySpan<byte> DocumentsNameUtf8 => "Documents"u8;

    /// <summary>Scans a single document (the root object).</summary>
    /// <exception cref="EncryptionException">Malformed JSON or UTF-8, a root that is not an object, or too deep.</exception>
    public static void ScanDocument(ReadOnlySpan<byte> input, DecryptionScan scan, int maxDepth)
    {
        Utf8Validation.ThrowIfInvalid(input);
        if (FastPathScanner.TryScanDocument(input, scan, maxDepth))
        {
            return;
        }

        // Declined: start over with the reader, which judges everything the fast path does not handle.
        scan.Reset();
        ScanDocumentWithReader(input, scan, maxDepth);
    }

    /// <summary>
    /// Scans a single document with <see cref="Utf8JsonReader"/> (the reference the fast path must match); the input
    /// has been checked to be UTF-8.
    /// </summary>
    /// <exception cref="EncryptionException">Malformed JSON, a root that is not an object, or too deep.</exception>
    public static void ScanDocumentWithReader(ReadOnlySpan<byte> input, DecryptionScan scan, int maxDepth)
    {
        try
        {
            var reader = new Utf8JsonReader(input, JsonDepth.ReaderOptions(maxDepth, 0));
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                JsonErrors.ThrowRootNotObject();
            }

            ScanObject(ref reader, input, scan, maxDepth, 0, 0);

            // Anything after the root other than whitespace makes this read throw.
            reader.Read();
        }
        catch (JsonException exception)
        {
            JsonErrors.ThrowMalformed(exception);
        }
    }

    /// <summary>
    /// Scans a feed page <c>{"_rid":…,"Documents":[…],"_count":n}</c>: every object in <c>Documents</c> becomes a
    /// document; other elements and other properties are skipped (copied verbatim later).
    /// </summary>
    /// <exception cref="EncryptionException">Malformed JSON, a root that is not an object, or too deep.</exception>
    public static void ScanFeedPage(ReadOnlySpan<byte> input, DecryptionScan scan, int maxDepth)
    {
        const int DocumentLevelOffset = -2;
        Utf8Validation.ThrowIfInvalid(input);
        try
        {
            // Documents sit two levels below the page root; the depth limit applies from each document's root.
            var reader = new Utf8JsonReader(input, JsonDepth.ReaderOptions(maxDepth, DocumentLevelOffset));
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                JsonErrors.ThrowRootNotObject();
            }

            bool documentsSeen = false;
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                bool isDocuments = reader.ValueTextEquals(DocumentsNameUtf8);
                if (isDocuments && documentsSeen)
                {
                    // Decrypting one and passing the other through would report success on ciphertext.
                    JsonErrors.ThrowMalformed("The feed page has more than one 'Documents' property.");
                }

                documentsSeen |= isDocuments;
                reader.Read();
                if (!isDocuments || reader.TokenType != JsonTokenType.StartArray)
                {
                    JsonDepth.SkipValue(ref reader, maxDepth, DocumentLevelOffset);
                    continue;
                }

                int index = 0;
                while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
                {
                    if (reader.TokenType == JsonTokenType.StartObject)
                    {
                        ScanObject(ref reader, input, scan, maxDepth, DocumentLevelOffset, index);
                    }
                    else
                    {
                        JsonDepth.SkipValue(ref reader, maxDepth, DocumentLevelOffset);
                    }

                    index++;
                }

                scan.ArrayLength = index;
            }

            reader.Read();
        }
        catch (JsonException exception)
        {
            JsonErrors.ThrowMalformed(exception);
        }
    }

    private static void ScanObject(ref Utf8JsonReader reader, ReadOnlySpan<byte> input, DecryptionScan scan, int maxDepth, int levelOffset, int index)
    {
        JsonDepth.Check(reader.CurrentDepth, maxDepth, levelOffset);
        int objectDepth = reader.CurrentDepth;

        ref DocumentRecord document = ref scan.AddDocument();
        document.Start = (int)reader.TokenStartIndex;
        document.Index = index;
        document.FirstProperty = scan.PropertyCount;
        document.EnvelopeProperty = -1;
        document.AnchorProperty = -1;
        document.QueryTokensProperty = -1;
        document.IdProperty = -1;
        document.EncryptedDataStart = -1;

        while (reader.Read() && reader.CurrentDepth > objectDepth)
        {
            int propertyIndex = scan.PropertyCount;
            ref PropertyRecord property = ref scan.AddProperty();
            property.NameStart = (int)reader.TokenStartIndex;
            property.PathIndex = -1;
            property.NestedChild = -1;
            if (!reader.ValueIsEscaped)
            {
                property.NameOffset = property.NameStart + 1;
                property.NameLength = reader.ValueSpan.Length;
                property.NameInBuffer = false;
            }
            else
            {
                BufferEscapedName(ref reader, scan, ref property);
            }

            reader.Read();
            property.ValueStart = (int)reader.TokenStartIndex;
            property.ValueType = reader.TokenType;
            property.ValueEscaped = reader.TokenType == JsonTokenType.String && reader.ValueIsEscaped;
            property.ValueCompact = false; // not known here: a container is compacted if it needs to be
            JsonDepth.SkipValue(ref reader, maxDepth, levelOffset);
            property.ValueEnd = (int)reader.BytesConsumed;
            Classify(ref document, propertyIndex, scan.GetName(input, property), property.ValueType);
        }

        document.End = (int)reader.BytesConsumed;
        document.PropertyCount = scan.PropertyCount - document.FirstProperty;
    }

    /// <summary>Notes whether the property just recorded is the document's <c>_ei</c> or its <c>id</c>.</summary>
    internal static void Classify(ref DocumentRecord document, int propertyIndex, ReadOnlySpan<byte> name, JsonTokenType valueType)
    {
        if (name.SequenceEqual(EncryptionEnvelope.PropertyNameUtf8))
        {
            if (document.EnvelopeProperty >= 0)
            {
                document.DuplicateEnvelope = true;
            }
            else
            {
                document.EnvelopeProperty = propertyIndex;
            }
        }
        else if (name.SequenceEqual(EncryptionEnvelope.AnchorNameUtf8))
        {
            // Counted as the anchor only where the metadata says the format has one (format 101).
            document.DuplicateAnchor |= document.AnchorProperty >= 0;
            document.AnchorProperty = document.AnchorProperty >= 0 ? document.AnchorProperty : propertyIndex;
        }
        else if (name.SequenceEqual(Tokens.QueryTokenRule.MemberNameUtf8))
        {
            document.DuplicateQueryTokens |= document.QueryTokensProperty >= 0;
            document.QueryTokensProperty = document.QueryTokensProperty >= 0 ? document.QueryTokensProperty : propertyIndex;
        }
        else if (valueType == JsonTokenType.String && document.IdProperty < 0 && name.SequenceEqual(EncryptionEnvelope.IdNameUtf8))
        {
            document.IdProperty = propertyIndex;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void BufferEscapedName(ref Utf8JsonReader reader, DecryptionScan scan, ref PropertyRecord property)
    {
        Span<byte> space = scan.GetNameSpace(reader.ValueSpan.Length, out int offset);
        int length = JsonStringUnescaper.CopyString(ref reader, space);
        scan.CommitName(length);
        property.NameOffset = offset;
        property.NameLength = length;
        property.NameInBuffer = true;
    }
}

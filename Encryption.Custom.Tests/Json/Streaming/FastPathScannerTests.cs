using System.Text;
using System.Text.Json;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Tests.TestSupport;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Json.Streaming;

/// <summary>
/// The fast scan must accept only what the reader scan accepts and record exactly what it records; everything else
/// it declines, and the reader then decides (same errors as before).
/// </summary>
public sealed class FastPathScannerTests
{
    private const int MaxDepth = 64;

    // Bytes that turn valid JSON into near-misses: structure, escapes, number parts, controls, invalid UTF-8.
    private static readonly byte[] s_mutationBytes = "{}[],:\"\\/0123456789-+.eEtrufalsn \n\t"u8.ToArray().Concat(new byte[] { 0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xFF }).ToArray();

    [Theory]
    [InlineData("{}")]
    [InlineData(" \r\n\t{ } \n")]
    [InlineData("{\"id\":\"1\",\"a\":\"x\",\"_ei\":{\"_ef\":3,\"_ep\":[\"/a\"]}}")]
    [InlineData("{ \"a\" : [ 1 , -0.5e+10 , 0 , 1E5 , true , false , null , \"s\\u00e9\\n\\\"\\\\\\/\" , { } , [ ] ] , \"b\" : { \"c\" : { \"d\" : [ [ [ ] ] ] } } }")]
    [InlineData("{\"é\":\"漢😀\",\"n\":-12.25E-3,\"e\":\"a\\tb\",\"id\":7,\"id\":\"x\",\"_ei\":null,\"_ei\":{}}")]
    public void TryScanDocument_ValidDocument_RecordsWhatTheReaderRecords(string json)
    {
        byte[] input = Encoding.UTF8.GetBytes(json);

        bool accepted = TryFast(input, out Snapshot fast);

        Assert.True(accepted);
        Assert.Equal(ScanWithReader(input), fast);
    }

    [Theory]
    [InlineData("")]
    [InlineData("  ")]
    [InlineData("[]")]
    [InlineData("{\"a\":1,}")]
    [InlineData("{\"a\":[1,]}")]
    [InlineData("{\"a\":01}")]
    [InlineData("{\"a\":1.}")]
    [InlineData("{\"a\":-}")]
    [InlineData("{\"a\":1e}")]
    [InlineData("{\"a\":+1}")]
    [InlineData("{\"a\":.5}")]
    [InlineData("{\"a\":tru}")]
    [InlineData("{\"a\":truex}")]
    [InlineData("{\"a\":\"\\x\"}")]
    [InlineData("{\"a\":\"\\u12G4\"}")]
    [InlineData("{\"a\":\"tab\there\"}")]
    [InlineData("{\"a\":1 /* c */}")]
    [InlineData("{\"a\":1}x")]
    [InlineData("{\"a\":1}{}")]
    [InlineData("{\"a\":{\"b\":1]}")]
    [InlineData("{\"a\" 1}")]
    [InlineData("{\"a\":1")]
    [InlineData("{\"\\u0061\":1}")]
    [InlineData("\uFEFF{}")]
    public void TryScanDocument_InputItDoesNotHandle_Declines(string json)
    {
        Assert.False(TryFast(Encoding.UTF8.GetBytes(json), out _));
    }

    [Fact]
    public void ScanDocument_InvalidUtf8InAString_FailsAsMalformedBeforeEitherScan()
    {
        byte[] input = [.. "{\"a\":\""u8, 0xC3, 0x28, .. "\"}"u8];
        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            EncryptionException exception = Assert.Throws<EncryptionException>(() => DocumentScanner.ScanDocument(input, scan, MaxDepth));

            Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
            Assert.Contains("UTF-8 (byte 7)", exception.Message, StringComparison.Ordinal);
        }
        finally
        {
            DecryptionScan.Return(scan);
        }
    }

    [Theory]
    [InlineData(2, "{\"a\":{}}", true)]
    [InlineData(2, "{\"a\":{\"b\":[]}}", false)]
    [InlineData(1, "{\"a\":1}", true)]
    [InlineData(1, "{\"a\":[]}", false)]
    public void TryScanDocument_ContainerAtTheDepthLimit_LeavesItToTheReader(int maxDepth, string json, bool expected)
    {
        byte[] input = Encoding.UTF8.GetBytes(json);
        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            Assert.Equal(expected, FastPathScanner.TryScanDocument(input, scan, maxDepth));
        }
        finally
        {
            DecryptionScan.Return(scan);
        }
    }

    [Fact]
    public void ScanDocument_TooDeepForTheFastPath_StillReportsLimitExceeded()
    {
        byte[] input = Encoding.UTF8.GetBytes("{\"a\":[[[1]]]}");
        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            EncryptionException exception = Assert.Throws<EncryptionException>(() => DocumentScanner.ScanDocument(input, scan, 3));

            Assert.Equal(EncryptionErrorKind.LimitExceeded, exception.Kind);
        }
        finally
        {
            DecryptionScan.Return(scan);
        }
    }

    [Fact]
    public void ScanDocument_Malformed_ReportsTheReadersPosition()
    {
        byte[] input = Encoding.UTF8.GetBytes("{\"a\":1,\n \"b\":01}");
        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            EncryptionException exception = Assert.Throws<EncryptionException>(() => DocumentScanner.ScanDocument(input, scan, MaxDepth));

            Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
            Assert.Contains("(line 2, byte", exception.Message, StringComparison.Ordinal);
        }
        finally
        {
            DecryptionScan.Return(scan);
        }
    }

    [Fact]
    public void TryScanDocument_GeneratedDocuments_AcceptedAndRecordedAsTheReaderDoes()
    {
        Prop.ForAll(JsonGenerators.Documents, shape =>
        {
            byte[] input = Encoding.UTF8.GetBytes(shape.Json);
            bool accepted = TryFast(input, out Snapshot fast);
            Snapshot reader = ScanWithReader(input);

            // Generated documents use escaped names now and then; the fast path leaves those to the reader.
            bool escapedName = reader.Properties.Any(p => p.NameInBuffer);
            return escapedName ? !accepted || fast == reader : accepted && fast == reader;
        }).QuickCheckThrowOnFailure();
    }

    [Fact]
    public void TryScanDocument_GeneratedDocuments_MarkAContainerCompactExactlyWhenCompactingWouldChangeNothing()
    {
        // The encryptor copies a container marked compact as it is, so the mark must never be set on one with
        // whitespace between its tokens; and it is worth something only if it is set on every one without.
        int compact = 0;
        int spaced = 0;
        Prop.ForAll(JsonGenerators.Documents, shape =>
        {
            // Two top-level containers in every case, written as generated, indented and compact.
            string wrapped = "{\"w\":" + shape.Json + ",\"l\":[" + shape.Json + "]}";
            foreach (byte[] input in new[] { Encoding.UTF8.GetBytes(wrapped), Rewritten(wrapped, indented: true), Rewritten(wrapped, indented: false) })
            {
                DecryptionScan scan = DecryptionScan.Rent();
                try
                {
                    if (!FastPathScanner.TryScanDocument(input, scan, MaxDepth))
                    {
                        continue;
                    }

                    foreach (PropertyRecord property in scan.Properties.AsSpan(0, scan.PropertyCount))
                    {
                        ReadOnlySpan<byte> text = input.AsSpan(property.ValueStart, property.ValueEnd - property.ValueStart);
                        bool container = property.ValueType is JsonTokenType.StartObject or JsonTokenType.StartArray;
                        bool unchangedByCompacting = container && JsonWhitespace.Compact(text, new byte[text.Length]) == text.Length;
                        if (property.ValueCompact != unchangedByCompacting)
                        {
                            return false;
                        }

                        compact += property.ValueCompact ? 1 : 0;
                        spaced += container && !property.ValueCompact ? 1 : 0;
                    }
                }
                finally
                {
                    DecryptionScan.Return(scan);
                }
            }

            return true;
        }).QuickCheckThrowOnFailure();

        Assert.True(compact > 0 && spaced > 0, $"compact {compact}, spaced {spaced}: both kinds of container must occur");
    }

    [Fact]
    public void TryScanDocument_MutatedDocuments_NeverAcceptsWhatTheReaderRejects()
    {
        Gen<(string Json, int Position, int Choice, int Kind)> mutations =
            from shape in JsonGenerators.Documents.Generator
            from position in Gen.Choose(0, 10_000)
            from choice in Gen.Choose(0, s_mutationBytes.Length - 1)
            from kind in Gen.Choose(0, 2)
            select (shape.Json, position, choice, kind);

        int accepted = 0;
        Prop.ForAll(mutations.ToArbitrary(), mutation =>
        {
            byte[] input = Mutate(Encoding.UTF8.GetBytes(mutation.Json), mutation.Position, s_mutationBytes[mutation.Choice], mutation.Kind);

            // Invalid UTF-8 never reaches either scan (DocumentScanner refuses it first).
            if (!System.Text.Unicode.Utf8.IsValid(input) || !TryFast(input, out Snapshot fast))
            {
                return true;
            }

            // Accepted: the reader must accept it too and find the same properties.
            accepted++;
            return fast == ScanWithReader(input);
        }).Check(Config.QuickThrowOnFailure.WithMaxTest(2000));

        // Many mutations keep the JSON valid (a digit for a digit, whitespace): the property above was exercised.
        Assert.InRange(accepted, 100, 2000);
    }

    private static byte[] Mutate(byte[] input, int position, byte value, int kind)
    {
        int at = position % (input.Length + 1);
        return kind switch
        {
            0 when at < input.Length => [.. input[..at], value, .. input[(at + 1)..]],
            1 when at < input.Length => [.. input[..at], .. input[(at + 1)..]],
            _ => [.. input[..at], value, .. input[at..]],
        };
    }

    // The same document with whitespace between every token, or none (strings as the writer escapes them; the relaxed
    // encoder leaves non-ASCII names unescaped, which the fast scan would leave to the reader).
    private static byte[] Rewritten(string json, bool indented)
    {
        using JsonDocument document = JsonDocument.Parse(json);
        using var buffer = new MemoryStream();
        using (var writer = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = indented, Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping }))
        {
            document.WriteTo(writer);
        }

        return buffer.ToArray();
    }

    private static bool TryFast(byte[] input, out Snapshot snapshot)
    {
        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            bool accepted = FastPathScanner.TryScanDocument(input, scan, MaxDepth);
            snapshot = Snapshot.Of(scan);
            return accepted;
        }
        finally
        {
            DecryptionScan.Return(scan);
        }
    }

    // The reference: the reader scan (throws on input it rejects, which fails the property).
    private static Snapshot ScanWithReader(byte[] input)
    {
        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            DocumentScanner.ScanDocumentWithReader(input, scan, MaxDepth);
            return Snapshot.Of(scan);
        }
        finally
        {
            DecryptionScan.Return(scan);
        }
    }

    // What both scans record. ValueCompact is the fast scan's alone (the reader's scan does not know it): tested above.
    private sealed record Snapshot(DocumentRecord Document, PropertyRecord[] Properties)
    {
        public static Snapshot Of(DecryptionScan scan) => new(
            scan.DocumentCount == 1 ? scan.Documents[0] : default,
            scan.Properties.AsSpan(0, scan.PropertyCount).ToArray().Select(property => property with { ValueCompact = false }).ToArray());

        public bool Equals(Snapshot? other) =>
            other is not null && Document.Equals(other.Document) && Properties.SequenceEqual(other.Properties);

        public override int GetHashCode() => Properties.Length;
    }
}

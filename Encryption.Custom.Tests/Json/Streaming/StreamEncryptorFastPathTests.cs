using System.Buffers;
using System.Text;
using Encryption.Custom.Json;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Encryption.Custom.Tests.TestSupport;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Json.Streaming;

/// <summary>
/// Encryption over the fast scan (and the batched encrypt) must write what the reader scan with values encrypted one by
/// one writes and refuse what it refuses, with the same error: that is the reference (<c>reference: true</c>).
/// Deterministic values make the outputs comparable byte for byte; randomized ones are compared by length and by what
/// they decrypt to.
/// </summary>
public sealed class StreamEncryptorFastPathTests : IDisposable
{
    private const string KeyId = "dek";
    private const int MaxDepth = 64;

    private static readonly byte[] s_mutationBytes = "{}[],:\"\\0123456789-.etrufalsn \n"u8.ToArray();

    private readonly DataEncryptionKey _key = TestKeys.Create(TestKeyKind.Protected);

    public void Dispose() => _key.Dispose();

    [Theory]
    [InlineData("{\"id\":\"1\",\"a\":\"x\",\"b\":12,\"c\":1.5,\"d\":true,\"e\":false,\"f\":null,\"g\":{\"h\":[1, 2]},\"s\":\"t\\u00e9\\n\"}", "/a,/b,/c,/d,/e,/f,/g,/s", "")]
    [InlineData("{\"id\":\"1\",\"a\":\"x\",\"b\":12,\"c\":1.5,\"d\":true,\"s\":\"t\\u00e9\\n\"}", "/a,/b,/c,/d,/s", "/a,/b,/c,/d,/s")]
    [InlineData(" { } ", "/a", "")]
    [InlineData("{\"a\":1}  \n", "/a", "/a")]
    [InlineData("{\"a\":1,\"a\":2}", "/a", "")]
    [InlineData("{\"A\":1}", "/a", "")]
    [InlineData("{\"_ei\":{},\"a\":1}", "/a", "")]
    [InlineData("{\"a\":12345678901234567890}", "/a", "")]
    [InlineData("{\"a\":{\"b\":1}}", "/a", "/a")]
    [InlineData("{\"a\":1,\"b\":\"x\"", "/a", "")]
    public void Encrypt_Examples_FastPathMatchesTheReaderWalk(string json, string paths, string deterministic)
    {
        Assert.True(Compare(Encoding.UTF8.GetBytes(json), Split(paths), Split(deterministic)).Agreed);
    }

    [Fact]
    public void Encrypt_GeneratedDocuments_FastPathMatchesTheReaderWalk()
    {
        int fast = 0;
        Prop.ForAll(JsonGenerators.Documents, Gen.Elements(true, false).ToArbitrary(), (shape, allDeterministic) =>
        {
            Outcome outcome = Compare(Encoding.UTF8.GetBytes(shape.Json), shape.Paths, allDeterministic ? shape.Paths : []);
            fast += outcome.Scanned ? 1 : 0;
            return outcome.Agreed;
        }).Check(Config.QuickThrowOnFailure.WithMaxTest(1000));

        // Escaped names (and the other inputs the scan declines) send about four in five generated documents to the
        // reader; about 200 of the 1,000 take the fast path. This only makes sure the property above exercised it.
        Assert.InRange(fast, 50, 1000);
    }

    [Fact]
    public void Encrypt_MutatedDocuments_SameOutputOrSameError()
    {
        Gen<(string Json, string[] Paths, int Position, int Choice, bool Insert)> mutations =
            from shape in JsonGenerators.Documents.Generator
            from position in Gen.Choose(0, 10_000)
            from choice in Gen.Choose(0, s_mutationBytes.Length - 1)
            from insert in Gen.Elements(true, false)
            select (shape.Json, shape.Paths, position, choice, insert);

        Prop.ForAll(mutations.ToArbitrary(), m =>
        {
            byte[] input = Encoding.UTF8.GetBytes(m.Json);
            int at = m.Position % (input.Length + 1);
            byte[] mutated = m.Insert || at == input.Length
                ? [.. input[..at], s_mutationBytes[m.Choice], .. input[at..]]
                : [.. input[..at], s_mutationBytes[m.Choice], .. input[(at + 1)..]];
            return !System.Text.Unicode.Utf8.IsValid(mutated) || Compare(mutated, m.Paths, m.Paths).Agreed;
        }).Check(Config.QuickThrowOnFailure.WithMaxTest(1000));
    }

    private static string[] Split(string paths) => paths.Length == 0 ? [] : paths.Split(',');

    private Outcome Compare(byte[] document, string[] paths, string[] deterministic)
    {
        EncryptionPlan plan = EncryptionPlan.Create(KeyId, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, paths, deterministic.Length > 0 ? deterministic : null);
        (byte[]? fast, EncryptionException? fastError) = Run(document, plan, reference: false);
        (byte[]? reader, EncryptionException? readerError) = Run(document, plan, reference: true);
        bool scanned = IsScanned(document);
        if (fast is null || reader is null)
        {
            bool sameError = fastError is not null && readerError is not null && fastError.Kind == readerError.Kind && fastError.Message == readerError.Message;
            return new Outcome(sameError, scanned);
        }

        // Deterministic values (and a plan with no paths, which returns the input as it is) compare byte for byte.
        if (paths.Length == deterministic.Length)
        {
            return new Outcome(fast.AsSpan().SequenceEqual(reader), scanned);
        }

        var encryptor = new TestEncryptor().Add(KeyId, _key);
        bool agreed = fast.Length == reader.Length
            && Processors.Create(JsonProcessor.Stream).Decrypt(fast, encryptor).AsSpan().SequenceEqual(Processors.Create(JsonProcessor.Stream).Decrypt(reader, encryptor));
        return new Outcome(agreed, scanned);
    }

    private (byte[]? Output, EncryptionException? Error) Run(byte[] document, EncryptionPlan plan, bool reference)
    {
        var output = new ArrayBufferWriter<byte>();
        try
        {
            StreamEncryptor.Encrypt(document, output, _key, plan, MaxDepth, int.MaxValue, reference);
            return (output.WrittenSpan.ToArray(), null);
        }
        catch (EncryptionException exception)
        {
            return (null, exception);
        }
    }

    private static bool IsScanned(byte[] document)
    {
        if (!System.Text.Unicode.Utf8.IsValid(document))
        {
            return false;
        }

        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            return FastPathScanner.TryScanDocument(document, scan, MaxDepth);
        }
        finally
        {
            DecryptionScan.Return(scan);
        }
    }

    private readonly record struct Outcome(bool Agreed, bool Scanned);
}

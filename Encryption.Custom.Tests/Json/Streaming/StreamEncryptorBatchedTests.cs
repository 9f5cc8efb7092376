using System.Buffers;
using System.Text;
using Encryption.Custom.Crypto.Chains;
using Encryption.Custom.Json;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Json.Tokens;
using Encryption.Custom.Keys;
using Encryption.Custom.Tests.TestSupport;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Json.Streaming;

/// <summary>
/// The batched encrypt (issue 37) against the reference, which reads with the reader and encrypts value by value:
/// the same bytes with deterministic values, and the same error where the output limit falls, also for documents with
/// more values than one batch (<c>ValueBatch.Capacity</c>), for values nested selectors pick, and for query tokens
/// (deterministic values are scalars only; containers are covered by the randomized case).
/// (<see cref="StreamEncryptorFastPathTests"/> covers the documents and errors the fast scan and the reader share.)
/// </summary>
public sealed class StreamEncryptorBatchedTests : IDisposable
{
    private const int MaxDepth = 64;
    private readonly DataEncryptionKey _key = TestKeys.Create(TestKeyKind.Protected);

    public void Dispose() => _key.Dispose();

    [Fact]
    public void Encrypt_OutputLimitAnywhere_SameOutputOrSameErrorAsTheReaderWalk()
    {
        SkipUnlessBatched();
        Gen<(DocumentShape Shape, int Percent)> cases =
            from shape in JsonGenerators.Documents.Generator
            from percent in Gen.Choose(50, 130)
            select (shape, percent);

        Prop.ForAll(cases.ToArbitrary(), c =>
        {
            byte[] document = Encoding.UTF8.GetBytes(c.Shape.Json);
            EncryptionPlan plan = DeterministicPlan(c.Shape.Paths);
            (byte[]? full, _) = Run(document, plan, int.MaxValue, reference: true);
            int limit = full is null ? document.Length : (int)((long)full.Length * c.Percent / 100);
            return Agree(Run(document, plan, limit, reference: false), Run(document, plan, limit, reference: true));
        }).Check(Config.QuickThrowOnFailure.WithMaxTest(500));
    }

    [Theory]
    [InlineData(1)]
    [InlineData(33)]
    [InlineData(64)]
    [InlineData(65)]
    [InlineData(300)]
    public void Encrypt_ManyValues_SameBytesAsTheReaderWalk(int valueCount)
    {
        SkipUnlessBatched();
        var json = new StringBuilder("{\"id\":\"x\"");
        string[] paths = new string[valueCount];
        for (int i = 0; i < valueCount; i++)
        {
            paths[i] = $"/p{i}";
            json.Append($",\"p{i}\":").Append((i % 4) switch
            {
                0 => $"\"{new string('v', i * 13)}\"",
                1 => $"{i}.5",
                2 => i % 8 == 2 ? "true" : "false",
                _ => "\"esc\\naped\"",
            });
        }

        byte[] document = Encoding.UTF8.GetBytes(json.Append('}').ToString());
        EncryptionPlan plan = DeterministicPlan(paths);

        (byte[]? batched, EncryptionException? error) = Run(document, plan, int.MaxValue, reference: false);
        (byte[]? reference, _) = Run(document, plan, int.MaxValue, reference: true);

        Assert.Null(error);
        Assert.Equal(reference, batched);
    }

    [Fact]
    public void Encrypt_RandomizedBatch_EveryValueDecryptsToTheReaderWalksValue()
    {
        SkipUnlessBatched();
        byte[] document = Encoding.UTF8.GetBytes("{\"id\":\"1\",\"a\":\"x\",\"b\":12,\"c\":1.5,\"d\":true,\"g\":{\"h\":[1, 2]},\"s\":\"t\\u00e9\\n\",\"n\":null}");
        EncryptionPlan plan = EncryptionPlan.Create("dek", CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, ["/a", "/b", "/c", "/d", "/g", "/s", "/n"], null);
        var encryptor = new TestEncryptor().Add("dek", _key);

        (byte[]? batched, _) = Run(document, plan, int.MaxValue, reference: false);
        (byte[]? reference, _) = Run(document, plan, int.MaxValue, reference: true);

        Assert.Equal(reference!.Length, batched!.Length);
        Assert.NotEqual(reference, batched);
        Assert.Equal(
            Processors.Create(JsonProcessor.Stream).Decrypt(reference, encryptor),
            Processors.Create(JsonProcessor.Stream).Decrypt(batched, encryptor));
    }

    [Theory]
    [InlineData("""{"id":"x","sku":"AB-1234","age":42,"note":"n"}""")]
    [InlineData("""{"id":"x","age":-50,"sku":"\u00c9t\u00e9-9","note":null}""")]
    [InlineData("""{"id":"x","note":"only"}""")]
    [InlineData("""{"id":"x","age":201}""")]
    public void Encrypt_QueryTokens_SameBytesOrErrorAsTheReference(string json)
    {
        // Tokens are computed in the gather from the plaintext the cell will hold: '_q' and every cell as the value-by-value
        // loop writes them (deterministic cells), or the same refusal for a value outside the declared range.
        SkipUnlessBatched();
        byte[] document = Encoding.UTF8.GetBytes(json);
        string[] paths = ["/sku", "/age", "/note"];
        EncryptionPlan plan = EncryptionPlan.Create(
            "dek",
            CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized,
            paths,
            paths,
            queryTokens: [QueryTokenRule.ForPrefix("/sku", 1, 4, ignoreCase: true, 12), QueryTokenRule.ForRange("/age", new RangeDomain(RangeValueType.Integer, -50, 200, 1, 2, 1, "int:-50:200"), 12), null]);

        (byte[]? batched, EncryptionException? batchedError) = Run(document, plan, int.MaxValue, reference: false);
        (byte[]? reference, EncryptionException? referenceError) = Run(document, plan, int.MaxValue, reference: true);

        Assert.Equal(reference, batched);
        Assert.Equal(referenceError?.Message, batchedError?.Message);
        Assert.True(reference is null || Encoding.UTF8.GetString(reference).Contains("\"_q\"", StringComparison.Ordinal) || !json.Contains("sku", StringComparison.Ordinal));
    }

    [Fact]
    public void Encrypt_NestedSelectors_SameBytesOrErrorAsTheReference()
    {
        // Values nested selectors pick are gathered into the batch by the walk the value-by-value loop uses; more than
        // one batch's worth (ValueBatch.Capacity) of array elements makes the batch encrypt and write midway.
        SkipUnlessBatched();
        Gen<string> scalar = Gen.Elements("\"v\"", "\"esc\\naped\"", "\"\"", "12", "-1.5e3", "true", "false", "null", "\"\u00e9t\u00e9\"");
        Gen<string> element =
            from d in scalar
            from other in scalar
            from shape in Gen.Choose(0, 999)
            select shape switch
            {
                < 60 => $"{{\"o\":{other}}}",
                < 120 => d,
                < 121 => $"{{\"D\":{d}}}", // a case variant, refused: rare, so that most documents get through
                _ => $"{{\"d\":{d},\"o\":{other}}}",
            };
        Gen<(string Json, int Percent)> cases =
            from b in scalar
            from count in Gen.Choose(0, 200)
            from elements in element.ArrayOf(count)
            from e in scalar
            from order in Gen.Choose(0, 1)
            from percent in Gen.Choose(60, 130)
            let a = $"\"a\":{{\"x\":1,\"b\":{b},\"c\":[{string.Join(',', elements)}]}}"
            select (order == 0 ? $"{{\"id\":\"1\",{a},\"e\":{e}}}" : $"{{\"e\":{e},\"id\":\"1\",{a}}}", percent);
        EncryptionPlan plan = DeterministicPlan(["/a/b", "/a/c/[]/d", "/e"]);

        Prop.ForAll(cases.ToArbitrary(), c =>
        {
            byte[] document = Encoding.UTF8.GetBytes(c.Json);
            (byte[]? full, _) = Run(document, plan, int.MaxValue, reference: true);
            int limit = full is null ? int.MaxValue : (int)((long)full.Length * c.Percent / 100);
            return Agree(Run(document, plan, limit, reference: false), Run(document, plan, limit, reference: true));
        }).Check(Config.QuickThrowOnFailure.WithMaxTest(300));
    }

    [Fact]
    public void Encrypt_ManyThreadsOneKey_EveryBatchMatchesTheReaderWalk()
    {
        // The batch uses the key's pooled AEAD contexts and their round keys (a protected slot per context, unmasked
        // per batch): threads sharing one key must never see another's chains or keys. Bounded: 4 threads × 150
        // documents, each compared byte for byte with the reader walk's (deterministic cells), so a race shows.
        SkipUnlessBatched();
        string[] paths = ["/a", "/b", "/c", "/d", "/e", "/f"];
        EncryptionPlan plan = DeterministicPlan(paths);
        var failures = new System.Collections.Concurrent.ConcurrentQueue<string>();
        Parallel.For(0, 4, new ParallelOptions { MaxDegreeOfParallelism = 4 }, thread =>
        {
            var random = new Random(thread);
            for (int i = 0; i < 150; i++)
            {
                var json = new StringBuilder("{\"id\":\"x\"");
                foreach (string path in paths)
                {
                    json.Append($",\"{path[1..]}\":\"{new string((char)('a' + random.Next(26)), random.Next(0, 400))}\"");
                }

                byte[] document = Encoding.UTF8.GetBytes(json.Append('}').ToString());
                (byte[]? batched, _) = Run(document, plan, int.MaxValue, reference: false);
                (byte[]? reference, _) = Run(document, plan, int.MaxValue, reference: true);
                if (batched is null || reference is null || !batched.AsSpan().SequenceEqual(reference))
                {
                    failures.Enqueue($"thread {thread}, document {i}");
                }
            }
        });

        Assert.Empty(failures);
    }

    private static void SkipUnlessBatched() =>
        Assert.SkipUnless(InterleavedAesCbcEncryptor.IsSupported, "AES-NI is not available: the fast path encrypts value by value");

    private static EncryptionPlan DeterministicPlan(string[] paths) =>
        EncryptionPlan.Create("dek", CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, paths, paths.Length > 0 ? paths : null);

    private static bool Agree((byte[]? Output, EncryptionException? Error) fast, (byte[]? Output, EncryptionException? Error) reader) =>
        fast.Output is not null && reader.Output is not null
            ? fast.Output.AsSpan().SequenceEqual(reader.Output)
            : fast.Error is not null && reader.Error is not null && fast.Error.Kind == reader.Error.Kind && fast.Error.Message == reader.Error.Message;

    private (byte[]? Output, EncryptionException? Error) Run(byte[] document, EncryptionPlan plan, int maxLength, bool reference)
    {
        var output = new ArrayBufferWriter<byte>();
        try
        {
            StreamEncryptor.Encrypt(document, output, _key, plan, MaxDepth, maxLength, reference);
            return (output.WrittenSpan.ToArray(), null);
        }
        catch (EncryptionException exception)
        {
            return (null, exception);
        }
    }
}

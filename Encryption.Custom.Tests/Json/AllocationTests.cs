using System.Buffers;
using System.Text;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Keys;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary>
/// Steady-state allocations of the stream processor (not timed): zero bytes per encrypt and decrypt through the
/// <see cref="IBufferWriter{T}"/> overloads, and within the Stream budget through the <see cref="Stream"/> ones.
/// </summary>
/// <remarks>
/// Uses the library's own key (native AEAD, itself allocation-free), so this is the end-to-end figure. Runs alone (other
/// tests' threads would share the processor's pools, and their GCs trim <c>ArrayPool</c>), and keeps the best of
/// several rounds: steady state means a round without pool refills.
/// </remarks>
[Collection(nameof(AllocationTests))]
[CollectionDefinition(nameof(AllocationTests), DisableParallelization = true)]
public sealed class AllocationTests : IDisposable
{
    private const int Operations = 100;
    private const int Rounds = 5;
    private const int StreamBudgetBytes = 256;

    private readonly DataEncryptionKey _key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
    private readonly TestEncryptor _encryptor = new();

    public AllocationTests()
    {
        _encryptor.Add(DocumentShapes.KeyId, _key);
    }

    public static TheoryData<int> Sizes => new(1024, 64 * 1024);

    public void Dispose() => _key.Dispose();

    [Theory]
    [MemberData(nameof(Sizes))]
    public void StreamProcessor_BufferWriterOverloads_AllocateNothingWhenWarm(int size)
    {
        var processor = new StreamProcessor();
        (byte[] document, EncryptionOptions options) = MixedDocument(size);
        AssertWarmRoundTripAllocatesNothing(processor, document, options, size * 2);
    }

    [Theory]
    [MemberData(nameof(Sizes))]
    public void StreamProcessor_BoundDocument_BufferWriterOverloads_AllocateNothingWhenWarm(int size)
    {
        // Binding adds a top-level pre-scan and a digest per document, and bound cells per value: still 0 B.
        var policy = new ContainerEncryptionPolicy(DocumentShapes.KeyId, ["/ssn", "/address/city", "/cards/[]/number"]) { Bind = true };
        Encryption.Custom.Json.Rules.PolicyRuleSet rules = policy.Rules.BindTo(new Encryption.Custom.Json.WireFormat.BindingTarget("db/orders", ["/pk"]));
        EncryptionProcessor processor = EncryptionProcessor.Create(JsonProcessor.Stream, rules: rules);
        EncryptionOptions options = rules.CreateWriteOptions();
        string padding = new('x', Math.Max(0, size - 200));
        byte[] document = Encoding.UTF8.GetBytes($$$"""{"id":"alice\u00e9","pk":"tenant-1","ssn":"111-22-3333","address":{"city":"Paris","zip":"75001"},"cards":[{"number":"4111"},{"number":"4222"}],"notes":"{{{padding}}}"}""");
        string stored = AssertWarmRoundTripAllocatesNothing(processor, document, options, size * 2);
        Assert.Contains("\"bind\"", stored, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Sizes))]
    public void StreamProcessor_QueryTokenDocument_BufferWriterOverloads_AllocateNothingWhenWarm(int size)
    {
        // Range and prefix paths, one on a nested selector: tokens computed beside each cell (prefix normalization in pooled buffers), '_q'
        // written before the envelope, and the strict read recomputing and comparing every token: still 0 B. Text with
        // characters from U+0300 up goes through the BCL's normalization, which allocates (docs/queries.md).
        var policy = new ContainerEncryptionPolicy(DocumentShapes.KeyId,
        [
            new EncryptionPolicyIncludedPath("/name") { Queries = new PrefixQueryOptions { IgnoreCase = true } },
            new EncryptionPolicyIncludedPath("/age") { Queries = new IntegerRangeQueryOptions(0, 150) },
            new EncryptionPolicyIncludedPath("/dob") { Queries = new DateTimeRangeQueryOptions(DateTimeOffset.UnixEpoch, new DateTimeOffset(2100, 1, 1, 0, 0, 0, TimeSpan.Zero)) },
            new EncryptionPolicyIncludedPath("/balance") { Queries = new DecimalRangeQueryOptions(-1000, 1000000, 2) },
            new EncryptionPolicyIncludedPath("/ssn"),
            new EncryptionPolicyIncludedPath("/address/zip") { Queries = new IntegerRangeQueryOptions(0, 99999) },
            new EncryptionPolicyIncludedPath("/address/city"),
        ]) { Bind = false };
        EncryptionProcessor processor = EncryptionProcessor.Create(JsonProcessor.Stream, rules: policy.Rules);
        EncryptionOptions options = policy.Rules.CreateWriteOptions();
        string padding = new('x', Math.Max(0, size - 250));
        byte[] document = Encoding.UTF8.GetBytes($$$"""{"id":"a","name":"Am\u00e9lie Zo\u00eb","age":36,"dob":"1990-05-06T07:08:09.123Z","balance":1234.56,"ssn":"111-22-3333","address":{"city":"Paris","zip":75001},"notes":"{{{padding}}}"}""");
        string stored = AssertWarmRoundTripAllocatesNothing(processor, document, options, size * 2);
        Assert.Contains("\"qt\"", stored, StringComparison.Ordinal);
        Assert.Contains("\"_q\":{\"/name\":[", stored, StringComparison.Ordinal);
        Assert.Contains("\"/address/zip\":[", stored, StringComparison.Ordinal);
    }

    [Fact]
    public void StreamProcessor_EscapedPropertyNames_AllocateNothingWhenWarm()
    {
        // A name written with escapes is unescaped into scratch space before it is looked up
        // (ScratchBuffer.WithUnescaped): on the stack, or in a rented buffer past 256 bytes. A top-level path, a nested
        // selector and a long unrelated name each take that way here.
        var policy = new ContainerEncryptionPolicy(DocumentShapes.KeyId, ["/ssn", "/address/city"]) { Bind = false };
        EncryptionProcessor processor = EncryptionProcessor.Create(JsonProcessor.Stream, rules: policy.Rules);
        EncryptionOptions options = policy.Rules.CreateWriteOptions();
        string longName = new string('n', 300) + "\\u0041";
        byte[] document = Encoding.UTF8.GetBytes($$"""{"id":"a","s\u0073n":"111-22-3333","addr\u0065ss":{"c\u0069ty":"Paris","z\u0069p":"75001"},"{{longName}}":1}""");
        string stored = AssertWarmRoundTripAllocatesNothing(processor, document, options, 4096);
        Assert.DoesNotContain("111-22-3333", stored, StringComparison.Ordinal);
        Assert.DoesNotContain("Paris", stored, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Sizes))]
    public void StreamProcessor_StreamOverloads_StayWithinTheBudgetWhenWarm(int size)
    {
        var processor = new StreamProcessor();
        (byte[] document, EncryptionOptions options) = MixedDocument(size);
        var input = new MemoryStream(document);
        var encrypted = new MemoryStream(size * 2);
        RunSynchronously(processor.EncryptAsync(input, encrypted, _encryptor, options, TestContext.Current.CancellationToken));
        byte[] encryptedDocument = encrypted.ToArray();
        var encryptedInput = new MemoryStream(encryptedDocument);
        var decrypted = new MemoryStream(size * 2);

        void EncryptOnce()
        {
            input.Position = 0;
            encrypted.Position = 0;
            RunSynchronously(processor.EncryptAsync(input, encrypted, _encryptor, options, TestContext.Current.CancellationToken));
        }

        void DecryptOnce()
        {
            encryptedInput.Position = 0;
            decrypted.SetLength(0);
            RunSynchronously(processor.DecryptAsync(encryptedInput, decrypted, _encryptor, cancellationToken: TestContext.Current.CancellationToken));
        }

        long encryptBytes = MeasureAllocations(EncryptOnce);
        long decryptBytes = MeasureAllocations(DecryptOnce);

        JsonAssert.Equivalent(document, decrypted.ToArray());
        Assert.InRange(encryptBytes, 0, StreamBudgetBytes);
        Assert.InRange(decryptBytes, 0, StreamBudgetBytes);
    }

    [Fact]
    public void StreamProcessor_FeedPageBufferWriterOverload_AllocatesNothingWhenWarm()
    {
        var processor = new StreamProcessor();
        (byte[] document, EncryptionOptions options) = MixedDocument(2048);
        byte[] encrypted = processor.Encrypt(document, _key, options);
        byte[] page = Encoding.UTF8.GetBytes("{\"_rid\":\"x\",\"Documents\":[" + Encoding.UTF8.GetString(encrypted) + "," + Encoding.UTF8.GetString(document) + "," + Encoding.UTF8.GetString(encrypted) + "],\"_count\":3}");
        var output = new ArrayBufferWriter<byte>(page.Length * 2);

        long bytes = MeasureAllocations(() =>
        {
            output.ResetWrittenCount();
            processor.DecryptFeedPage(page, output, _encryptor);
        });

        Assert.Equal(0, bytes);
    }

    [Fact]
    public void StreamProcessor_WithContainerPolicy_DecryptsDocumentsAndPagesWithoutAllocating()
    {
        (byte[] document, EncryptionOptions options) = MixedDocument(2048);
        var policy = new ContainerEncryptionPolicy(options.DataEncryptionKeyId!, options.PathsToEncrypt!);
        var processor = new StreamProcessor() { Rules = policy.Rules };
        byte[] encrypted = processor.Encrypt(document, _key, options);
        byte[] page = Encoding.UTF8.GetBytes("{\"_rid\":\"x\",\"Documents\":[" + Encoding.UTF8.GetString(encrypted) + "," + Encoding.UTF8.GetString(encrypted) + "],\"_count\":2}");
        var output = new ArrayBufferWriter<byte>(page.Length * 2);

        long documentBytes = MeasureAllocations(() =>
        {
            output.ResetWrittenCount();
            processor.Decrypt(encrypted, output, _encryptor);
        });
        long pageBytes = MeasureAllocations(() =>
        {
            output.ResetWrittenCount();
            processor.DecryptFeedPage(page, output, _encryptor);
        });

        Assert.Equal(0, documentBytes);
        Assert.Equal(0, pageBytes);
    }

    // Over memory streams and a synchronous encryptor the async overloads complete synchronously; measuring on
    // one thread needs exactly that, so anything else is a test failure rather than a wait.
    private static void RunSynchronously(ValueTask pending)
    {
        Assert.True(pending.IsCompletedSuccessfully, "completed synchronously");
#pragma warning disable xUnit1031 // Already completed: this only observes the result.
        pending.GetAwaiter().GetResult();
#pragma warning restore xUnit1031
    }

    private static void RunSynchronously<T>(ValueTask<T> pending)
    {
        Assert.True(pending.IsCompletedSuccessfully, "completed synchronously");
#pragma warning disable xUnit1031 // Already completed: this only observes the result.
        pending.GetAwaiter().GetResult();
#pragma warning restore xUnit1031
    }

    // Encrypts and decrypts the document once to warm up, then measures each in steady state: 0 B, and the round trip
    // gives the document back. Returns the encrypted document as text.
    private string AssertWarmRoundTripAllocatesNothing(EncryptionProcessor processor, byte[] document, EncryptionOptions options, int capacity)
    {
        var encrypted = new ArrayBufferWriter<byte>(capacity);
        var decrypted = new ArrayBufferWriter<byte>(capacity);
        processor.Encrypt(document, encrypted, _key, options);
        byte[] encryptedDocument = encrypted.WrittenSpan.ToArray();

        void EncryptOnce()
        {
            encrypted.ResetWrittenCount();
            processor.Encrypt(document, encrypted, _key, options);
        }

        void DecryptOnce()
        {
            decrypted.ResetWrittenCount();
            processor.Decrypt(encryptedDocument, decrypted, _encryptor);
        }

        long encryptBytes = MeasureAllocations(EncryptOnce);
        long decryptBytes = MeasureAllocations(DecryptOnce);

        JsonAssert.Equivalent(document, decrypted.WrittenSpan);
        Assert.Equal(0, encryptBytes);
        Assert.Equal(0, decryptBytes);
        return Encoding.UTF8.GetString(encryptedDocument);
    }

    private static long MeasureAllocations(Action operation)
    {
        for (int i = 0; i < 20; i++)
        {
            operation();
        }

        long best = long.MaxValue;
        for (int round = 0; round < Rounds; round++)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < Operations; i++)
            {
                operation();
            }

            best = Math.Min(best, (GC.GetAllocatedBytesForCurrentThread() - before) / Operations);
        }

        return best;
    }

    // About half the bytes in ~400-byte encrypted strings, plus numbers, booleans, nested objects and arrays.
    private static (byte[] Document, EncryptionOptions Options) MixedDocument(int size)
    {
        var json = new StringBuilder("{\"id\":\"mixed\"");
        var paths = new List<string>();
        var random = new Random(size);
        for (int i = 0; json.Length < size - 50; i++)
        {
            string name = "p" + i.ToString(System.Globalization.CultureInfo.InvariantCulture);
            bool encrypt = i % 2 == 0;
            string value = (i % 6) switch
            {
                0 => "\"" + new string((char)('a' + random.Next(26)), 400) + "\"",
                1 => random.NextInt64().ToString(System.Globalization.CultureInfo.InvariantCulture),
                2 => (random.NextDouble() * 1000).ToString("R", System.Globalization.CultureInfo.InvariantCulture),
                3 => "true",
                4 => "{\"a\":[1,2,{\"b\":\"c\"}],\"d\":null}",
                _ => "[\"x\",1.5,false]",
            };
            json.Append(",\"").Append(name).Append("\":").Append(value);
            if (encrypt)
            {
                paths.Add("/" + name);
            }
        }

        json.Append('}');
        return (Encoding.UTF8.GetBytes(json.ToString()), new EncryptionOptions { DataEncryptionKeyId = DocumentShapes.KeyId, PathsToEncrypt = paths });
    }
}

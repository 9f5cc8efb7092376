using System.Buffers;
using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary>The <see cref="Stream"/> overloads: trickled input, asynchronous keys, nothing written on failure, cancellation.</summary>
public sealed class StreamApiTests : IDisposable
{
    private readonly ReferenceDataEncryptionKey _key = ReferenceDataEncryptionKey.CreateRandom();
    private readonly TestEncryptor _encryptor = new();

    public StreamApiTests()
    {
        _encryptor.Add(DocumentShapes.KeyId, _key);
    }

    public static MatrixTheoryData<JsonProcessor, string> ProcessorsAndShapes => DocumentShapes.ProcessorsAndNames;

    public void Dispose() => _key.Dispose();

    [Theory]
    [MemberData(nameof(ProcessorsAndShapes))]
    public async Task StreamRoundTrip_InputTrickledOneByteAtATime_GivesTheSameResultAsWholeInput(JsonProcessor kind, string shapeName)
    {
        DocumentShape shape = DocumentShapes.Get(shapeName);
        EncryptionProcessor processor = Processors.Create(kind);
        _encryptor.Asynchronous = true;

        // One byte per read (the megabyte shape in 1 KB reads, to keep the run short).
        int chunk = shape.Utf8.Length > 100_000 ? 1024 : 1;
        var encrypted = new MemoryStream();
        await processor.EncryptAsync(new TricklingStream(shape.Utf8, chunk), encrypted, _encryptor, shape.Options(), TestContext.Current.CancellationToken);
        var decrypted = new MemoryStream();
        await processor.DecryptAsync(new TricklingStream(encrypted.ToArray(), chunk), decrypted, _encryptor, cancellationToken: TestContext.Current.CancellationToken);

        JsonAssert.Equivalent(shape.Utf8, decrypted.ToArray());
        Assert.Equal(processor.Decrypt(encrypted.ToArray(), _encryptor), decrypted.ToArray());
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task StreamRoundTrip_LargeDocumentInSmallChunks_Succeeds(JsonProcessor kind)
    {
        DocumentShape shape = DocumentShapes.Get("large-string");
        EncryptionProcessor processor = Processors.Create(kind);

        var encrypted = new MemoryStream();
        await processor.EncryptAsync(new TricklingStream(shape.Utf8, 4096), encrypted, _encryptor, shape.Options(), TestContext.Current.CancellationToken);
        var decrypted = new ArrayBufferWriter<byte>();
        await processor.DecryptAsync(new TricklingStream(encrypted.ToArray(), 4096), decrypted, _encryptor, cancellationToken: TestContext.Current.CancellationToken);

        JsonAssert.Equivalent(shape.Utf8, decrypted.WrittenSpan);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task DecryptAsync_WithContextRequested_ReturnsIt(JsonProcessor kind)
    {
        DocumentShape shape = DocumentShapes.Get("fixture");
        EncryptionProcessor processor = Processors.Create(kind);
        byte[] encrypted = processor.Encrypt(shape.Utf8, _key, shape.Options());

        DecryptionContext? context = await processor.DecryptAsync(new MemoryStream(encrypted), new MemoryStream(), _encryptor, includeDecryptionContext: true, TestContext.Current.CancellationToken);
        DecryptionContext? none = await processor.DecryptAsync(new MemoryStream(encrypted), new MemoryStream(), _encryptor, cancellationToken: TestContext.Current.CancellationToken);

        Assert.Equal(DocumentShapes.FixturePaths, Assert.Single(context!.DecryptionInfoList).PathsDecrypted);
        Assert.Null(none);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task EncryptAsync_Failure_WritesNothingToTheDestination(JsonProcessor kind)
    {
        EncryptionProcessor processor = Processors.Create(kind);
        var options = new EncryptionOptions { DataEncryptionKeyId = DocumentShapes.KeyId, PathsToEncrypt = ["/a", "/big"] };
        var output = new MemoryStream();

        await Assert.ThrowsAsync<EncryptionException>(async () =>
            await processor.EncryptAsync(new MemoryStream("{\"a\":\"x\",\"big\":99999999999999999999}"u8.ToArray()), output, _encryptor, options, TestContext.Current.CancellationToken));

        Assert.Equal(0, output.Length);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task DecryptAsync_Failure_WritesNothingToTheDestination(JsonProcessor kind)
    {
        EncryptionProcessor processor = Processors.Create(kind);
        byte[] encrypted = processor.Encrypt("{\"a\":\"first\",\"b\":\"second\"}", _key, new EncryptionOptions { DataEncryptionKeyId = DocumentShapes.KeyId, PathsToEncrypt = ["/a", "/b"] });
        using var wrongKey = ReferenceDataEncryptionKey.CreateRandom();
        var output = new MemoryStream();

        await Assert.ThrowsAsync<EncryptionException>(async () =>
            await processor.DecryptAsync(new MemoryStream(encrypted), output, new TestEncryptor().Add(DocumentShapes.KeyId, wrongKey), cancellationToken: TestContext.Current.CancellationToken));

        Assert.Equal(0, output.Length);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task EncryptAsync_UnknownKey_FailsAsKeyUnavailableAndWritesNothing(JsonProcessor kind)
    {
        var output = new MemoryStream();
        var options = new EncryptionOptions { DataEncryptionKeyId = "missing", PathsToEncrypt = ["/a"] };

        EncryptionException exception = await Assert.ThrowsAsync<EncryptionException>(async () =>
            await Processors.Create(kind).EncryptAsync(new MemoryStream("{\"a\":1}"u8.ToArray()), output, _encryptor, options, TestContext.Current.CancellationToken));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, exception.Kind);
        Assert.Equal(0, output.Length);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task EncryptAsync_InvalidOptions_FailsBeforeReadingTheInput(JsonProcessor kind)
    {
        var input = new TricklingStream("{\"a\":1}"u8.ToArray());
        var options = new EncryptionOptions { DataEncryptionKeyId = DocumentShapes.KeyId, PathsToEncrypt = ["/id"] };

        await Assert.ThrowsAsync<EncryptionException>(async () =>
            await Processors.Create(kind).EncryptAsync(input, new MemoryStream(), _encryptor, options, TestContext.Current.CancellationToken));

        Assert.Equal(0, input.Reads);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task DecryptAsync_CancelledBetweenChunks_ThrowsAndWritesNothing(JsonProcessor kind)
    {
        DocumentShape shape = DocumentShapes.Get("many-properties");
        EncryptionProcessor processor = Processors.Create(kind);
        byte[] encrypted = processor.Encrypt(shape.Utf8, _key, shape.Options());
        using var cancellation = new CancellationTokenSource();
        var input = new TricklingStream(encrypted, 64) { CancelAfterReads = cancellation, CancelAfter = 5 };
        var output = new MemoryStream();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () =>
            await processor.DecryptAsync(input, output, _encryptor, cancellationToken: cancellation.Token));

        Assert.Equal(0, output.Length);
        Assert.InRange(input.Reads, 5, 6);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task EncryptAsync_AlreadyCancelled_ThrowsWithoutReading(JsonProcessor kind)
    {
        var input = new TricklingStream("{\"a\":1}"u8.ToArray());
        var options = new EncryptionOptions { DataEncryptionKeyId = DocumentShapes.KeyId, PathsToEncrypt = ["/a"] };

        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () =>
            await Processors.Create(kind).EncryptAsync(input, new MemoryStream(), _encryptor, options, new CancellationToken(canceled: true)));

        Assert.Equal(0, input.Reads);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task DecryptAsync_StreamOverMaxLength_FailsAsLimitExceededWithoutReadingItAll(JsonProcessor kind)
    {
        byte[] big = new byte[1 << 20];
        big.AsSpan().Fill((byte)' ');
        "{}"u8.CopyTo(big);
        var input = new TricklingStream(big, 1024);
        EncryptionProcessor processor = Processors.Create(kind, new EncryptionProcessorOptions { MaxDocumentLength = 64 * 1024 });

        EncryptionException exception = await Assert.ThrowsAsync<EncryptionException>(async () =>
            await processor.DecryptAsync(input, new MemoryStream(), _encryptor, cancellationToken: TestContext.Current.CancellationToken));

        Assert.Equal(EncryptionErrorKind.LimitExceeded, exception.Kind);
        Assert.InRange(input.Reads, 64, 66);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task EncryptAsync_ExposedMemoryStreamInput_IsReadFromItsPositionAndConsumed(JsonProcessor kind)
    {
        var input = new MemoryStream();
        input.Write("garbage"u8);
        input.Write("{\"id\":\"1\",\"a\":\"x\"}"u8);
        input.Position = 7;
        var output = new MemoryStream();
        var options = new EncryptionOptions { DataEncryptionKeyId = DocumentShapes.KeyId, PathsToEncrypt = ["/a"] };

        await Processors.Create(kind).EncryptAsync(input, output, _encryptor, options, TestContext.Current.CancellationToken);

        Assert.Equal(input.Length, input.Position);
        JsonAssert.Equivalent("{\"id\":\"1\",\"a\":\"x\"}", Processors.Create(kind).Decrypt(output.ToArray(), _encryptor).Utf8());
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task DecryptAsync_PooledMemoryStreamBothWays_RoundTrips(JsonProcessor kind)
    {
        DocumentShape shape = DocumentShapes.Get("nested");
        EncryptionProcessor processor = Processors.Create(kind);
        using var encrypted = new PooledMemoryStream();
        await processor.EncryptAsync(new MemoryStream(shape.Utf8), encrypted, _encryptor, shape.Options(), TestContext.Current.CancellationToken);
        encrypted.Position = 0;

        using var decrypted = new PooledMemoryStream();
        await processor.DecryptAsync(encrypted, decrypted, _encryptor, cancellationToken: TestContext.Current.CancellationToken);

        JsonAssert.Equivalent(shape.Utf8, decrypted.GetContent());
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task StreamOverloads_NullArguments_ThrowArgumentNull(JsonProcessor kind)
    {
        EncryptionProcessor processor = Processors.Create(kind);
        var options = new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = ["/a"] };
        var stream = new MemoryStream();
        CancellationToken token = TestContext.Current.CancellationToken;

        await Assert.ThrowsAsync<ArgumentNullException>(async () => await processor.EncryptAsync(null!, stream, _encryptor, options, token));
        await Assert.ThrowsAsync<ArgumentNullException>(async () => await processor.EncryptAsync(stream, (Stream)null!, _encryptor, options, token));
        await Assert.ThrowsAsync<ArgumentNullException>(async () => await processor.EncryptAsync(stream, stream, null!, options, token));
        await Assert.ThrowsAsync<ArgumentNullException>(async () => await processor.EncryptAsync(stream, stream, _encryptor, null!, token));
        await Assert.ThrowsAsync<ArgumentNullException>(async () => await processor.DecryptAsync(null!, stream, _encryptor, cancellationToken: token));
        await Assert.ThrowsAsync<ArgumentNullException>(async () => await processor.DecryptAsync(stream, stream, null!, cancellationToken: token));
        await Assert.ThrowsAsync<ArgumentNullException>(async () => await processor.DecryptFeedPageAsync(stream, (Stream)null!, _encryptor, cancellationToken: token));
        await Assert.ThrowsAsync<ArgumentNullException>(async () => await processor.DecryptFeedPageAsync(stream, (System.Buffers.IBufferWriter<byte>)null!, _encryptor, cancellationToken: token));
    }

    [Fact]
    public async Task StreamOverloads_PooledBuffersGoBackWithoutPlaintext()
    {
        // ArrayPool.Shared hands a thread back the array it returned last for a size: after a synchronous round
        // trip, the arrays that held the input and the output must hold no trace of the secret.
        string secret = "TOP-SECRET-" + new string('s', 3000);
        byte[] document = ("{\"id\":\"1\",\"a\":\"" + secret + "\"}").Utf8();
        var processor = new StreamProcessor();
        var options = new EncryptionOptions { DataEncryptionKeyId = DocumentShapes.KeyId, PathsToEncrypt = ["/a"] };
        var encrypted = new MemoryStream();
        await processor.EncryptAsync(new MemoryStream(document, writable: false), encrypted, _encryptor, options, TestContext.Current.CancellationToken);
        await processor.DecryptAsync(new MemoryStream(encrypted.ToArray(), writable: false), new MemoryStream(), _encryptor, cancellationToken: TestContext.Current.CancellationToken);

        byte[] needle = "TOP-SECRET"u8.ToArray();
        foreach (int size in new[] { 256, 512, 1024, 2048, 4096, 8192, 16384, 32768 })
        {
            byte[] array = System.Buffers.ArrayPool<byte>.Shared.Rent(size);
            try
            {
                Assert.True(array.AsSpan().IndexOf(needle) < 0, $"a pooled array of {array.Length} bytes still holds plaintext");
            }
            finally
            {
                System.Buffers.ArrayPool<byte>.Shared.Return(array);
            }
        }
    }
}

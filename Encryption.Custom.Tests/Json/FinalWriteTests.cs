using System.Text.Json;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary>
/// "Nothing is written to a <see cref="Stream"/> destination unless the operation succeeded" also holds when the
/// token is cancelled while the finished result is being copied out: the destination gets all of it (and the call
/// succeeds) or none of it.
/// </summary>
public sealed class FinalWriteTests : IDisposable
{
    private const string Plain = "{\"id\":\"1\",\"a\":\"secret value\",\"b\":\"more plaintext for several chunks\"}";

    private readonly ReferenceDataEncryptionKey _key = ReferenceDataEncryptionKey.CreateRandom();
    private readonly TestEncryptor _encryptor = new();

    public FinalWriteTests() => _encryptor.Add("dek1", _key);

    public void Dispose() => _key.Dispose();

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task EncryptAsync_CancelledDuringTheFinalWrite_WritesAllOrNothing(JsonProcessor kind)
    {
        EncryptionProcessor processor = Processors.Create(kind);
        var options = new EncryptionOptions { DataEncryptionKeyId = "dek1", PathsToEncrypt = ["/a"] };

        byte[] sent = await RunCancelledDuringWriteAsync((destination, token) =>
            processor.EncryptAsync(new MemoryStream(Plain.Utf8()), destination, _encryptor, options, token).AsTask());

        JsonAssert.Equivalent(Plain, processor.Decrypt(sent, _encryptor).Utf8());
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task DecryptAsync_CancelledDuringTheFinalWrite_WritesAllOrNothing(JsonProcessor kind)
    {
        EncryptionProcessor processor = Processors.Create(kind);
        byte[] encrypted = processor.Encrypt(Plain, _key, new EncryptionOptions { DataEncryptionKeyId = "dek1", PathsToEncrypt = ["/a", "/b"] });

        byte[] sent = await RunCancelledDuringWriteAsync((destination, token) =>
            processor.DecryptAsync(new MemoryStream(encrypted), destination, _encryptor, cancellationToken: token).AsTask());

        JsonAssert.Equivalent(Plain, sent.Utf8());
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task DecryptFeedPageAsync_CancelledDuringTheFinalWrite_WritesAllOrNothing(JsonProcessor kind)
    {
        EncryptionProcessor processor = Processors.Create(kind);
        byte[] encrypted = processor.Encrypt(Plain, _key, new EncryptionOptions { DataEncryptionKeyId = "dek1", PathsToEncrypt = ["/a", "/b"] });
        byte[] page = ("{\"_rid\":\"r\",\"Documents\":[" + encrypted.Utf8() + "],\"_count\":1}").Utf8();

        byte[] sent = await RunCancelledDuringWriteAsync((destination, token) =>
            processor.DecryptFeedPageAsync(new MemoryStream(page), destination, _encryptor, cancellationToken: token).AsTask());

        using JsonDocument parsed = JsonDocument.Parse(sent);
        JsonAssert.Equivalent(Plain, parsed.RootElement.GetProperty("Documents")[0].GetRawText());
    }

    // Cancels the token once the destination has sent its first chunk; the result must then be complete.
    private static async Task<byte[]> RunCancelledDuringWriteAsync(Func<Stream, CancellationToken, Task> operation)
    {
        using var cancellation = new CancellationTokenSource();
        using var destination = new SocketLikeStream(chunkSize: 8) { AfterFirstChunk = cancellation.Cancel };

        await operation(destination, cancellation.Token);

        Assert.True(cancellation.IsCancellationRequested, "The token was cancelled during the write.");
        return destination.Sent;
    }
}

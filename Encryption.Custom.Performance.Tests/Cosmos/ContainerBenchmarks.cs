using BenchmarkDotNet.Attributes;
using Encryption.Custom.Cosmos;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Keys;
using Encryption.Custom.Performance.Tests.Documents;
using Encryption.Custom.Performance.Tests.Infrastructure;
using Encryption.Custom.Performance.Tests.Json;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Performance.Tests.Cosmos;

/// <summary>
/// The container path a user pays for: a mixed document written with <c>CreateItemStreamAsync</c> and read back
/// with <c>ReadItemStreamAsync</c> (response body drained) through <c>container.WithEncryptor(encryptor)</c> over
/// <see cref="EchoContainer"/>, which only copies bytes. The <c>Plain*</c> methods make the same calls on the bare
/// echo container: the difference is the encryption container's whole cost (encrypting the body, decrypting the
/// create and read responses, its own objects).
/// </summary>
[Config(typeof(ProcessorComparisonConfig))]
public class ContainerBenchmarks
{
    private const int OperationsPerInvoke = 16;

    private readonly PartitionKey _partitionKey = new("p0");
    private DataEncryptionKey _key = null!;
    private Container _plain = null!;
    private Container _encrypted = null!;
    private EncryptionItemRequestOptions _options = null!;
    private byte[] _document = [];
    private byte[] _sink = [];

    [Params(1024, 8192, 65536)]
    public int Size { get; set; }

    [Params(JsonProcessor.Newtonsoft, JsonProcessor.Stream)]
    public JsonProcessor Processor { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        var encryptor = new BenchmarkEncryptor(BenchmarkDocument.KeyId, _key);
        BenchmarkDocument document = BenchmarkDocuments.Create(DocumentShape.Mixed, Size);
        _document = document.Utf8;
        _sink = new byte[64 * 1024];
        EncryptionOptions encryption = document.CreateOptions();
        encryption.JsonProcessor = Processor;
        _options = new EncryptionItemRequestOptions { EncryptionOptions = encryption };
        _plain = new EchoContainer();
        _encrypted = new EchoContainer().WithEncryptor(encryptor, new EncryptionContainerOptions { JsonProcessor = Processor });

        // Reads find a document in each container.
        CreateItemStream().GetAwaiter().GetResult();
        PlainCreateItemStream().GetAwaiter().GetResult();
    }

    [GlobalCleanup]
    public void Cleanup() => _key.Dispose();

    [Benchmark(OperationsPerInvoke = OperationsPerInvoke)]
    public Task<int> CreateItemStream() => CreateAsync(_encrypted, _options);

    [Benchmark(OperationsPerInvoke = OperationsPerInvoke)]
    public Task<int> ReadItemStream() => ReadAsync(_encrypted);

    [Benchmark(OperationsPerInvoke = OperationsPerInvoke)]
    [ProcessorIndependent]
    public Task<int> PlainCreateItemStream() => CreateAsync(_plain, null);

    [Benchmark(OperationsPerInvoke = OperationsPerInvoke)]
    [ProcessorIndependent]
    public Task<int> PlainReadItemStream() => ReadAsync(_plain);

    private async Task<int> CreateAsync(Container container, ItemRequestOptions? options)
    {
        int total = 0;
        for (int i = 0; i < OperationsPerInvoke; i++)
        {
            using var body = new MemoryStream(_document, 0, _document.Length, writable: false, publiclyVisible: true);
            using ResponseMessage created = await container.CreateItemStreamAsync(body, _partitionKey, options);
            total += Drain(created.Content);
        }

        return total;
    }

    private async Task<int> ReadAsync(Container container)
    {
        int total = 0;
        for (int i = 0; i < OperationsPerInvoke; i++)
        {
            using ResponseMessage read = await container.ReadItemStreamAsync("benchmark-item", _partitionKey);
            total += Drain(read.Content);
        }

        return total;
    }

    private int Drain(Stream content)
    {
        int total = 0;
        int read;
        while ((read = content.Read(_sink)) > 0)
        {
            total += read;
        }

        return total;
    }
}

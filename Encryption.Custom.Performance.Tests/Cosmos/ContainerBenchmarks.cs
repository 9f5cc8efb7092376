using BenchmarkDotNet.Attributes;
using Encryption.Custom.Json;
using Encryption.Custom.Keys;
using Encryption.Custom.Performance.Tests.Documents;
using Encryption.Custom.Performance.Tests.Infrastructure;
using Encryption.Custom.Performance.Tests.Json;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Performance.Tests.Cosmos;

/// <summary>
/// The container path: a mixed document written as a stream through encryption onto <see cref="CopyingContainer"/>
/// (which only copies bytes), and read back and decrypted. Stream in, stream out, as an application's
/// <c>CreateItemStreamAsync</c>/<c>ReadItemStreamAsync</c> calls see it.
/// </summary>
/// <remarks>
/// TODO(container): <c>Encryption.Custom/Cosmos/</c> (<c>container.WithEncryptor(encryptor)</c>) is not on this branch
/// yet, so the methods call the processor's stream overloads and then the stub, which is what the encryption
/// container will do. When it lands: build <c>_target = _container.WithEncryptor(_encryptor)</c> in
/// <see cref="Setup"/>, and replace each method's body by the one call on <c>_target</c>
/// (<c>CreateItemStreamAsync(_input, _partitionKey, options carrying _options)</c>, <c>ReadItemStreamAsync(_id,
/// _partitionKey)</c> then draining the decrypted content). Keep the class and method names: they are published.
/// </remarks>
[Config(typeof(ProcessorComparisonConfig))]
public class ContainerBenchmarks
{
    private const int OperationsPerInvoke = 16;

    private DataEncryptionKey _key = null!;
    private BenchmarkEncryptor _encryptor = null!;
    private EncryptionProcessor _processor = null!;
    private EncryptionOptions _options = null!;
    private CopyingContainer _container = null!;
    private MemoryStream _input = null!;
    private MemoryStream _body = null!;
    private MemoryStream _decrypted = null!;
    private PartitionKey _partitionKey;
    private string _id = string.Empty;

    [Params(1024, 8192)]
    public int Size { get; set; }

    [Params(JsonProcessor.Newtonsoft, JsonProcessor.Stream)]
    public JsonProcessor Processor { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        _encryptor = new BenchmarkEncryptor(BenchmarkDocument.KeyId, _key);
        _processor = EncryptionProcessor.Create(Processor);
        BenchmarkDocument document = BenchmarkDocuments.Create(DocumentShape.Mixed, Size);
        _options = document.CreateOptions();
        _options.JsonProcessor = Processor;
        _container = new CopyingContainer("benchmark");
        _input = new MemoryStream(document.Utf8, writable: false);
        _body = new MemoryStream((Size * 2) + 4096);
        _decrypted = new MemoryStream((Size * 2) + 4096);
        _id = "benchmark-item";
        _partitionKey = new PartitionKey(_id);

        // Reads find an encrypted document in the container.
        CreateItemStream().GetAwaiter().GetResult();
    }

    [GlobalCleanup]
    public void Cleanup() => _key.Dispose();

    [Benchmark(OperationsPerInvoke = OperationsPerInvoke)]
    public async Task<int> CreateItemStream()
    {
        int written = 0;
        for (int i = 0; i < OperationsPerInvoke; i++)
        {
            _input.Position = 0;
            _body.SetLength(0);
            await _processor.EncryptAsync(_input, _body, _encryptor, _options);
            _body.Position = 0;
            using ResponseMessage response = await _container.CreateItemStreamAsync(_body, _partitionKey);
            written += (int)_body.Length;
        }

        return written;
    }

    [Benchmark(OperationsPerInvoke = OperationsPerInvoke)]
    public async Task<int> ReadItemStream()
    {
        int read = 0;
        for (int i = 0; i < OperationsPerInvoke; i++)
        {
            using ResponseMessage response = await _container.ReadItemStreamAsync(_id, _partitionKey);
            _decrypted.SetLength(0);
            await _processor.DecryptAsync(response.Content, _decrypted, _encryptor);
            read += (int)_decrypted.Length;
        }

        return read;
    }
}

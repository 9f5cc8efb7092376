using System.Buffers;
using BenchmarkDotNet.Attributes;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Keys;
using Encryption.Custom.Performance.Tests.Documents;
using Encryption.Custom.Performance.Tests.Infrastructure;

namespace Encryption.Custom.Performance.Tests.Json;

/// <summary>
/// Decrypting a query or change-feed page of <see cref="DocumentCount"/> encrypted documents
/// (<c>{"_rid":…,"Documents":[…],"_count":100}</c>), span in, <see cref="IBufferWriter{T}"/> out.
/// </summary>
[Config(typeof(ProcessorComparisonConfig))]
public class FeedPageDecryptBenchmarks
{
    public const int DocumentCount = 100;

    private const int OperationsPerInvoke = 16;

    private DataEncryptionKey _key = null!;
    private BenchmarkEncryptor _encryptor = null!;
    private EncryptionProcessor _processor = null!;
    private byte[] _page = [];
    private ArrayBufferWriter<byte> _output = null!;

    [Params(DocumentShape.Published, DocumentShape.Mixed)]
    public DocumentShape Shape { get; set; }

    /// <summary>The size of each document in the page.</summary>
    [Params(1024, 8192)]
    public int DocumentSize { get; set; }

    [Params(JsonProcessor.Newtonsoft, JsonProcessor.Stream)]
    public JsonProcessor Processor { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        _encryptor = new BenchmarkEncryptor(BenchmarkDocument.KeyId, _key);
        _processor = EncryptionProcessor.Create(Processor);
        _page = FeedPages.Build(Shape, DocumentSize, DocumentCount, _key);
        _output = new ArrayBufferWriter<byte>(_page.Length * 2);
    }

    [GlobalCleanup]
    public void Cleanup() => _key.Dispose();

    [Benchmark(OperationsPerInvoke = OperationsPerInvoke)]
    public int DecryptFeedPage()
    {
        int decrypted = 0;
        for (int i = 0; i < OperationsPerInvoke; i++)
        {
            _output.ResetWrittenCount();
            decrypted += _processor.DecryptFeedPage(_page, _output, _encryptor).DecryptedCount;
        }

        return decrypted;
    }
}

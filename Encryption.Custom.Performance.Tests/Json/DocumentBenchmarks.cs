using System.Buffers;
using BenchmarkDotNet.Attributes;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Keys;
using Encryption.Custom.Performance.Tests.Documents;
using Encryption.Custom.Performance.Tests.Infrastructure;

namespace Encryption.Custom.Performance.Tests.Json;

/// <summary>
/// What the whole-document benchmarks share: the parameters (shape, size, processor; Newtonsoft is the baseline of the
/// speedup column) and a setup that builds the key, the document, the processor and the crypto-only workload outside
/// the measured methods. Each measured method runs <see cref="OperationsPerInvoke"/> operations, so that the forced
/// collections between iterations do not empty the pools.
/// </summary>
[Config(typeof(ProcessorComparisonConfig))]
public abstract class DocumentBenchmarks
{
    public const int OperationsPerInvoke = 16;

    [Params(DocumentShape.Published, DocumentShape.Mixed)]
    public DocumentShape Shape { get; set; }

    [Params(1024, 4096, 8192, 65536, 1024 * 1024)]
    public int Size { get; set; }

    [Params(JsonProcessor.Newtonsoft, JsonProcessor.Stream)]
    public JsonProcessor Processor { get; set; }

    protected DataEncryptionKey Key { get; private set; } = null!;

    protected BenchmarkEncryptor Encryptor { get; private set; } = null!;

    protected EncryptionProcessor DocumentProcessor { get; private set; } = null!;

    protected BenchmarkDocument Document { get; private set; } = null!;

    protected EncryptionOptions Options { get; private set; } = null!;

    /// <summary>The values of <see cref="Document"/> and the cells of <see cref="DocumentCryptoWorkload.EncryptedDocument"/>.</summary>
    protected DocumentCryptoWorkload Workload { get; private set; } = null!;

    protected ArrayBufferWriter<byte> Output { get; private set; } = null!;

    [GlobalSetup]
    public void Setup()
    {
        Key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        Encryptor = new BenchmarkEncryptor(BenchmarkDocument.KeyId, Key);
        DocumentProcessor = EncryptionProcessor.Create(Processor);
        Document = BenchmarkDocuments.Create(Shape, Size);
        Options = Document.CreateOptions();
        Workload = DocumentCryptoWorkload.Record(Document, Key);
        Output = new ArrayBufferWriter<byte>((Size * 2) + 4096);
    }

    [GlobalCleanup]
    public void Cleanup() => Key.Dispose();
}

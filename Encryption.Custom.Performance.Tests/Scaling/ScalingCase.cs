using System.Buffers;
using Encryption.Custom.Json;
using Encryption.Custom.Keys;
using Encryption.Custom.Performance.Tests.Documents;
using Encryption.Custom.Performance.Tests.Infrastructure;
using Encryption.Custom.Processing;

namespace Encryption.Custom.Performance.Tests.Scaling;

/// <summary>Which half of a processor a scaling case times.</summary>
public enum ScalingOperation
{
    Encrypt,
    Decrypt,
}

/// <summary>
/// One operation of the scaling check on one document: a processor encrypting the Mixed document of one size, or
/// decrypting what the stream processor wrote for it. Everything but the operation is prepared here.
/// </summary>
/// <remarks>
/// With more than one copy, each run takes the next copy of the input and writes to the next output buffer, so that
/// a small document is not served from a cache that a large one cannot fit in: the scaling check gives every size
/// the same number of bytes in rotation (docs/benchmarks.md, "A measurement that holds under load").
/// </remarks>
public sealed class ScalingCase : IDisposable
{
    private readonly EncryptionProcessor _processor;
    private readonly DataEncryptionKey _key;
    private readonly BenchmarkEncryptor _encryptor;
    private readonly EncryptionOptions _options;
    private readonly byte[][] _inputs;
    private readonly ArrayBufferWriter<byte>[] _outputs;
    private int _next;

    public ScalingCase(JsonProcessor processor, ScalingOperation operation, BenchmarkDocument document, int copies = 1)
    {
        ArgumentNullException.ThrowIfNull(document);
        ArgumentOutOfRangeException.ThrowIfLessThan(copies, 1);
        Processor = processor;
        Operation = operation;
        Size = document.Size;
        PathCount = document.Paths.Count;
        _key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        _encryptor = new BenchmarkEncryptor(BenchmarkDocument.KeyId, _key);
        _processor = document.CreateProcessor(processor);
        _options = document.CreateOptions();
        _outputs = new ArrayBufferWriter<byte>[copies];
        for (int i = 0; i < copies; i++)
        {
            _outputs[i] = new ArrayBufferWriter<byte>((document.Size * 2) + 4096);
        }

        byte[] input = document.Utf8;
        if (operation == ScalingOperation.Decrypt)
        {
            document.CreateProcessor(JsonProcessor.Stream).Encrypt(document.Utf8, _outputs[0], _key, _options);
            input = _outputs[0].WrittenSpan.ToArray();
        }

        // Separate arrays, not one array named many times: each copy has its own place in memory.
        _inputs = new byte[copies][];
        for (int i = 0; i < copies; i++)
        {
            _inputs[i] = input.AsSpan().ToArray();
        }
    }

    public JsonProcessor Processor { get; }

    public ScalingOperation Operation { get; }

    public int Size { get; }

    /// <summary>How many paths the document's options encrypt: proportional to <see cref="Size"/>.</summary>
    public int PathCount { get; }

    /// <summary>How many copies of the input the runs rotate over.</summary>
    public int Copies => _inputs.Length;

    /// <summary>Runs the operation once on the next copy; returns the bytes written, so that nothing is optimized away.</summary>
    public int Run()
    {
        byte[] input = _inputs[_next];
        ArrayBufferWriter<byte> output = _outputs[_next];
        _next = _next + 1 == _inputs.Length ? 0 : _next + 1;
        output.ResetWrittenCount();
        if (Operation == ScalingOperation.Encrypt)
        {
            _processor.Encrypt(input, output, _key, _options);
        }
        else
        {
            _processor.Decrypt(input, output, _encryptor);
        }

        return output.WrittenCount;
    }

    public void Dispose() => _key.Dispose();
}

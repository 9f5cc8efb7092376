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
public sealed class ScalingCase : IDisposable
{
    private readonly EncryptionProcessor _processor;
    private readonly DataEncryptionKey _key;
    private readonly BenchmarkEncryptor _encryptor;
    private readonly EncryptionOptions _options;
    private readonly byte[] _input;
    private readonly ArrayBufferWriter<byte> _output;

    public ScalingCase(JsonProcessor processor, ScalingOperation operation, BenchmarkDocument document)
    {
        ArgumentNullException.ThrowIfNull(document);
        Processor = processor;
        Operation = operation;
        Size = document.Size;
        PathCount = document.Paths.Count;
        _key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        _encryptor = new BenchmarkEncryptor(BenchmarkDocument.KeyId, _key);
        _processor = document.CreateProcessor(processor);
        _options = document.CreateOptions();
        _output = new ArrayBufferWriter<byte>((document.Size * 2) + 4096);
        if (operation == ScalingOperation.Encrypt)
        {
            _input = document.Utf8;
        }
        else
        {
            document.CreateProcessor(JsonProcessor.Stream).Encrypt(document.Utf8, _output, _key, _options);
            _input = _output.WrittenSpan.ToArray();
        }
    }

    public JsonProcessor Processor { get; }

    public ScalingOperation Operation { get; }

    public int Size { get; }

    /// <summary>How many paths the document's options encrypt: proportional to <see cref="Size"/>.</summary>
    public int PathCount { get; }

    /// <summary>Runs the operation once; returns the bytes written, so that nothing is optimized away.</summary>
    public int Run()
    {
        _output.ResetWrittenCount();
        if (Operation == ScalingOperation.Encrypt)
        {
            _processor.Encrypt(_input, _output, _key, _options);
        }
        else
        {
            _processor.Decrypt(_input, _output, _encryptor);
        }

        return _output.WrittenCount;
    }

    public void Dispose() => _key.Dispose();
}

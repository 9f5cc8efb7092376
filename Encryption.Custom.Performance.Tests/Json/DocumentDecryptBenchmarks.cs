using BenchmarkDotNet.Attributes;

namespace Encryption.Custom.Performance.Tests.Json;

/// <summary>
/// Decrypting a whole document (span in, <see cref="System.Buffers.IBufferWriter{T}"/> out, the key named by the
/// document resolved from an in-memory encryptor), and <see cref="CryptoOnly"/>: authenticating and decrypting just its
/// cells with the same key. Both processors read the same encrypted bytes (written by the stream processor).
/// </summary>
public class DocumentDecryptBenchmarks : DocumentBenchmarks
{
    [Benchmark(OperationsPerInvoke = OperationsPerInvoke)]
    public int Decrypt()
    {
        int written = 0;
        for (int i = 0; i < OperationsPerInvoke; i++)
        {
            Output.ResetWrittenCount();
            DocumentProcessor.Decrypt(Workload.EncryptedDocument, Output, Encryptor);
            written += Output.WrittenCount;
        }

        return written;
    }

    /// <summary>The same cells the processor authenticates and decrypts, with the same key; runs under Processor=Stream only.</summary>
    [Benchmark(OperationsPerInvoke = OperationsPerInvoke)]
    [CryptoOnly(nameof(Decrypt))]
    public int CryptoOnly()
    {
        int written = 0;
        for (int i = 0; i < OperationsPerInvoke; i++)
        {
            written += Workload.DecryptAll();
        }

        return written;
    }
}

using BenchmarkDotNet.Attributes;

namespace Encryption.Custom.Performance.Tests.Json;

/// <summary>
/// Encrypting a whole document (span in, <see cref="System.Buffers.IBufferWriter{T}"/> out, key already resolved),
/// and <see cref="CryptoOnly"/>: encrypting just its values with the same key.
/// </summary>
public class DocumentEncryptBenchmarks : DocumentBenchmarks
{
    [Benchmark(OperationsPerInvoke = OperationsPerInvoke)]
    public int Encrypt()
    {
        int written = 0;
        for (int i = 0; i < OperationsPerInvoke; i++)
        {
            Output.ResetWrittenCount();
            DocumentProcessor.Encrypt(Document.Utf8, Output, Key, Options);
            written += Output.WrittenCount;
        }

        return written;
    }

    /// <summary>The same plaintexts the processor feeds the AEAD, encrypted with the same key; runs under Processor=Stream only.</summary>
    [Benchmark(OperationsPerInvoke = OperationsPerInvoke)]
    [CryptoOnly(nameof(Encrypt))]
    public int CryptoOnly()
    {
        int written = 0;
        for (int i = 0; i < OperationsPerInvoke; i++)
        {
            written += Workload.EncryptAll();
        }

        return written;
    }
}

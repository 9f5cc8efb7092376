using System.Buffers;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Performance.Tests.Documents;
using Encryption.Custom.Performance.Tests.Infrastructure;

namespace Encryption.Custom.Performance.Tests.Allocation;

/// <summary>
/// One processor, one document, one API: encrypt and decrypt operations over buffers and streams that are allocated
/// once and reused, so whatever a measured operation allocates is the processor's own.
/// </summary>
internal sealed class ProcessorHarness
{
    private readonly EncryptionProcessor _processor;
    private readonly BenchmarkEncryptor _encryptor;
    private readonly byte[] _document;
    private readonly EncryptionOptions _options;
    private readonly ArrayBufferWriter<byte> _encrypted;
    private readonly ArrayBufferWriter<byte> _decrypted;
    private readonly MemoryStream _plainInput;
    private readonly MemoryStream _encryptedOutput;
    private readonly MemoryStream _decryptedOutput;
    private byte[] _encryptedBytes = [];
    private MemoryStream _encryptedInput = new();

    public ProcessorHarness(EncryptionProcessor processor, BenchmarkEncryptor encryptor, BenchmarkDocument document, ProcessorApi api)
    {
        _processor = processor;
        _encryptor = encryptor;
        _document = document.Utf8;
        _options = document.CreateOptions();
        Api = api;
        int capacity = (document.Size * 2) + 4096;
        _encrypted = new ArrayBufferWriter<byte>(capacity);
        _decrypted = new ArrayBufferWriter<byte>(capacity);
        _plainInput = new MemoryStream(_document, writable: false);
        _encryptedOutput = new MemoryStream(capacity);
        _decryptedOutput = new MemoryStream(capacity);
        EncryptOnce = api == ProcessorApi.BufferWriter ? EncryptToBufferWriter : EncryptStream;
        DecryptOnce = api == ProcessorApi.BufferWriter ? DecryptToBufferWriter : DecryptStream;
    }

    public ProcessorApi Api { get; }

    /// <summary>One encryption of the document; the result is <see cref="EncryptedDocument"/>.</summary>
    public Action EncryptOnce { get; }

    /// <summary>One decryption of the encrypted document fixed by <see cref="UseLastEncryption"/>.</summary>
    public Action DecryptOnce { get; }

    public ReadOnlySpan<byte> EncryptedDocument => Api == ProcessorApi.BufferWriter
        ? _encrypted.WrittenSpan
        : _encryptedOutput.GetBuffer().AsSpan(0, (int)_encryptedOutput.Length);

    public ReadOnlySpan<byte> DecryptedDocument => Api == ProcessorApi.BufferWriter
        ? _decrypted.WrittenSpan
        : _decryptedOutput.GetBuffer().AsSpan(0, (int)_decryptedOutput.Length);

    /// <summary>Freezes the latest encryption output as the input every decryption reads.</summary>
    /// <remarks>
    /// Input streams do not expose their buffer, so the processor reads them as it reads a network stream rather than
    /// taking the <see cref="MemoryStream"/> shortcut.
    /// </remarks>
    public void UseLastEncryption()
    {
        _encryptedBytes = EncryptedDocument.ToArray();
        _encryptedInput = new MemoryStream(_encryptedBytes, writable: false);
    }

    private void EncryptToBufferWriter()
    {
        _encrypted.ResetWrittenCount();
        _processor.Encrypt(_document, _encrypted, _encryptor.Key, _options);
    }

    private void EncryptStream()
    {
        _plainInput.Position = 0;
        _encryptedOutput.SetLength(0);
        AllocationMeter.Complete(_processor.EncryptAsync(_plainInput, _encryptedOutput, _encryptor, _options));
    }

    private void DecryptToBufferWriter()
    {
        _decrypted.ResetWrittenCount();
        _processor.Decrypt(_encryptedBytes, _decrypted, _encryptor);
    }

    private void DecryptStream()
    {
        _encryptedInput.Position = 0;
        _decryptedOutput.SetLength(0);
        AllocationMeter.Complete(_processor.DecryptAsync(_encryptedInput, _decryptedOutput, _encryptor));
    }
}

using System.Buffers;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Performance.Tests.Documents;

/// <summary>
/// The cryptographic work inside one document, on its own: the exact plaintexts the stream processor feeds the AEAD
/// when it encrypts the document (markers and base64 excluded), and the cells it produced. Encrypting or decrypting
/// them with the same key is the "crypto-only" time of the efficiency ratio (performance.md).
/// </summary>
public sealed class DocumentCryptoWorkload
{
    private readonly DataEncryptionKey _key;
    private readonly byte[][] _plainTexts;
    private readonly byte[][] _cells;
    private readonly byte[] _scratch;

    private DocumentCryptoWorkload(DataEncryptionKey key, byte[][] plainTexts, byte[][] cells, byte[] encryptedDocument)
    {
        _key = key;
        _plainTexts = plainTexts;
        _cells = cells;
        EncryptedDocument = encryptedDocument;
        int largest = Math.Max(plainTexts.Max(p => key.GetEncryptByteCount(p.Length)), cells.Max(c => key.GetDecryptByteCount(c.Length)));
        _scratch = new byte[largest];
    }

    /// <summary>The document as the stream processor encrypted it while recording; <see cref="DecryptAll"/> undoes exactly its cells.</summary>
    public byte[] EncryptedDocument { get; }

    public int ValueCount => _plainTexts.Length;

    public long PlainTextBytes => _plainTexts.Sum(p => (long)p.Length);

    /// <summary>Encrypts the document once with the stream processor through a recording wrapper around <paramref name="key"/>.</summary>
    /// <exception cref="InvalidOperationException">The document has no value to encrypt.</exception>
    public static DocumentCryptoWorkload Record(BenchmarkDocument document, DataEncryptionKey key)
    {
        ArgumentNullException.ThrowIfNull(document);
        ArgumentNullException.ThrowIfNull(key);
        var recorder = new RecordingDataEncryptionKey(key);
        var output = new ArrayBufferWriter<byte>(document.Size * 2);
        new StreamProcessor().Encrypt(document.Utf8, output, recorder, document.CreateOptions());
        if (recorder.PlainTexts.Count == 0)
        {
            throw new InvalidOperationException("The document has no value to encrypt.");
        }

        return new DocumentCryptoWorkload(key, [.. recorder.PlainTexts], [.. recorder.Cells], output.WrittenSpan.ToArray());
    }

    /// <summary>Encrypts every recorded plaintext with a fresh random IV, as the processor does.</summary>
    public int EncryptAll()
    {
        int total = 0;
        foreach (byte[] plainText in _plainTexts)
        {
            total += _key.EncryptData(plainText, _scratch);
        }

        return total;
    }

    /// <summary>Authenticates and decrypts every recorded cell.</summary>
    public int DecryptAll()
    {
        int total = 0;
        foreach (byte[] cell in _cells)
        {
            total += _key.DecryptData(cell, _scratch);
        }

        return total;
    }
}

using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using BenchmarkDotNet.Attributes;
using Encryption.Custom.Crypto;
using Encryption.Custom.Crypto.Chains;
using Encryption.Custom.Native.OpenSsl;
using Encryption.Custom.Performance.Tests.Documents;

namespace Encryption.Custom.Performance.Tests.Crypto.Interleaved;

/// <summary>
/// Issue 22's experiment: the 13 values of the Mixed 8 KB document encrypted per value through the product's OpenSSL
/// AEAD, against the same cells built in one batch (AES-NI CBC, four chains interleaved, or one chain at a time, then
/// the same OpenSSL HMAC per cell). Setup proves the batch cells are exactly the product's cells for the IVs they
/// carry (each one authenticates and decrypts to its value through the product), so only the speed is compared.
/// Run: <c>dotnet run -c Release --project Encryption.Custom.Performance.Tests -- --filter '*BatchEncryptBenchmarks*' --job short</c>.
/// </summary>
public class BatchEncryptBenchmarks
{
    private byte[][] _values = [];
    private byte[] _cells = [];
    private int[] _cellOffsets = [];
    private byte[] _padded = [];
    private InterleavedAesCbc.Message[] _messages = [];
    private InterleavedAesCbc.Message[] _byLength = [];
    private byte[] _joined = [];
    private AeadBatchValue[] _batch = [];
    private AeadAes256CbcHmacSha256? _openSsl;
    private InterleavedAesCbc? _interleaved;
    private OpenSslHmacSha256? _hmac;

    [GlobalSetup]
    public void Setup()
    {
        var keys = new BenchmarkKeySource(RandomNumberGenerator.GetBytes(32));
        _openSsl = new AeadAes256CbcHmacSha256(keys, OpenSslAeadBackend.Instance);
        _interleaved = new InterleavedAesCbc(keys.EncryptionKey);
        _hmac = OpenSslHmacSha256.Create(keys.MacKey);
        _values = ReadValues(BenchmarkDocuments.Create(DocumentShape.Mixed, 8192));

        _cellOffsets = new int[_values.Length + 1];
        _messages = new InterleavedAesCbc.Message[_values.Length];
        int paddedOffset = 0;
        for (int i = 0; i < _values.Length; i++)
        {
            int cellLength = AeadAes256CbcHmacSha256.GetCipherTextLength(_values[i].Length);
            _cellOffsets[i + 1] = _cellOffsets[i] + cellLength;
            int paddedLength = cellLength - AeadCellLayout.HeaderSize;
            _messages[i] = new InterleavedAesCbc.Message(paddedOffset, _cellOffsets[i] + AeadCellLayout.CipherTextOffset, _cellOffsets[i] + AeadCellLayout.IvOffset, paddedLength);
            paddedOffset += paddedLength;
        }

        // Chains are grouped four at a time by length, so a group's common prefix is most of its work (the document
        // order interleaves ~400-byte strings with 8-byte scalars, which would leave one-block prefixes).
        _byLength = [.. _messages.OrderByDescending(m => m.Length)];
        _cells = new byte[_cellOffsets[^1]];
        _padded = new byte[paddedOffset];

        // The product's batch reads the values where they are (the processor would hand it the document's bytes).
        _joined = [.. _values.SelectMany(v => v)];
        _batch = new AeadBatchValue[_values.Length];
        for (int i = 0, offset = 0; i < _values.Length; offset += _values[i].Length, i++)
        {
            _batch[i] = new AeadBatchValue(offset, _values[i].Length, _cellOffsets[i]);
        }

        Verify(lanes: 4);
        Verify(lanes: 1);
        Verify(lanes: 0);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _openSsl?.Dispose();
        _hmac?.Dispose();
    }

    [Benchmark(Baseline = true)]
    public int PerValueOpenSsl()
    {
        int total = 0;
        for (int i = 0; i < _values.Length; i++)
        {
            total += _openSsl!.Encrypt(_values[i], _cells.AsSpan(_cellOffsets[i]));
        }

        return total;
    }

    [Benchmark]
    public int BatchInterleavedFour() => EncryptBatch(lanes: 4);

    [Benchmark]
    public int BatchOneChainAtATime() => EncryptBatch(lanes: 1);

    /// <summary>The product's batch (issue 37): round keys in protected memory, lanes refilled as values end.</summary>
    [Benchmark]
    public int ProductEncryptBatch()
    {
        _openSsl!.EncryptBatch(_joined, default, _cells, _batch);
        return _cells.Length;
    }

    private int EncryptBatch(int lanes)
    {
        // Pad every value into one arena and draw its IV into its cell, as the product does per value.
        for (int i = 0; i < _values.Length; i++)
        {
            InterleavedAesCbc.Message message = _messages[i];
            Span<byte> padded = _padded.AsSpan(message.InputOffset, message.Length);
            _values[i].CopyTo(padded);
            padded[_values[i].Length..].Fill((byte)(message.Length - _values[i].Length));
            AeadRandomIv.Fill(_cells.AsSpan(message.IvOffset, AeadCellLayout.IvSize));
        }

        _interleaved!.Encrypt(_padded, _cells, _byLength, lanes);
        CryptographicOperations.ZeroMemory(_padded);

        ReadOnlySpan<byte> version = [AeadCellLayout.Version];
        for (int i = 0; i < _values.Length; i++)
        {
            Span<byte> cell = _cells.AsSpan(_cellOffsets[i], _cellOffsets[i + 1] - _cellOffsets[i]);
            cell[0] = AeadCellLayout.Version;
            _hmac!.Compute(version, cell[AeadCellLayout.IvOffset..], version, cell.Slice(AeadCellLayout.TagOffset, AeadCellLayout.TagSize));
        }

        return _cells.Length;
    }

    // Every batch cell must authenticate and decrypt to its value through the product: then it is, byte for byte,
    // the cell the product writes for that IV (the tag covers IV and C, and CBC decryption is a bijection).
    private void Verify(int lanes)
    {
        // Lanes 0: the product's batch.
        _ = lanes == 0 ? ProductEncryptBatch() : EncryptBatch(lanes);
        for (int i = 0; i < _values.Length; i++)
        {
            byte[] plainText = _openSsl!.Decrypt(_cells.AsSpan(_cellOffsets[i], _cellOffsets[i + 1] - _cellOffsets[i]).ToArray());
            if (!plainText.AsSpan().SequenceEqual(_values[i]))
            {
                throw new InvalidOperationException($"The batch cell {i} ({lanes} lanes) is not the product's cell.");
            }
        }
    }

    // The plaintexts the JSON layer would hand the AEAD for each encrypted path (wire-format.md §3.2).
    private static byte[][] ReadValues(BenchmarkDocument document)
    {
        using JsonDocument json = JsonDocument.Parse(document.Utf8);
        return document.Paths.Select(path =>
        {
            JsonElement value = json.RootElement.GetProperty(path[1..]);
            return value.ValueKind switch
            {
                JsonValueKind.String => Encoding.UTF8.GetBytes(value.GetString()!),
                JsonValueKind.Number when value.TryGetInt64(out long number) => BitConverter.GetBytes(number),
                JsonValueKind.Number => BitConverter.GetBytes(value.GetDouble()),
                JsonValueKind.True => BitConverter.GetBytes(1L),
                JsonValueKind.False => BitConverter.GetBytes(0L),
                _ => Encoding.UTF8.GetBytes(value.GetRawText()),
            };
        }).ToArray();
    }
}

using Encryption.Custom.Cosmos.Processing;
using Encryption.Custom.Cosmos.Streams;
using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Diagnostics;
using Encryption.Custom.Processing;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Feeds;

/// <summary>
/// One stored document as it came from the service (ciphertext included, no plaintext), decrypted on demand.
/// </summary>
internal sealed class DecryptableItemCore : DecryptableItem
{
    private readonly byte[] _document;
    private readonly BodyCrypto _crypto;
    private readonly EncryptionProcessor _processor;
    private readonly CosmosSerializer _serializer;
    private readonly string _containerId;

    public DecryptableItemCore(byte[] document, BodyCrypto crypto, EncryptionProcessor processor, CosmosSerializer serializer, string containerId)
    {
        _document = document;
        _crypto = crypto;
        _processor = processor;
        _serializer = serializer;
        _containerId = containerId;
    }

    public override async Task<(T Item, DecryptionContext? DecryptionContext)> GetItemAsync<T>(CancellationToken cancellationToken = default)
    {
        if (!IsObject(_document))
        {
            // SELECT VALUE results and other non-documents carry no metadata: nothing to decrypt.
            return (_serializer.FromStream<T>(new MemoryStream(_document, writable: false)), null);
        }

        using OperationTelemetry? telemetry = OperationTelemetry.Start(OperationNames.DecryptableItemGetItem, _containerId);
        long start = telemetry is null ? 0 : OperationTelemetry.Timestamp();
        PooledBufferWriter buffer = PooledBufferWriterPool.Rent();
        DecryptionContext? context;
        try
        {
            using var input = new MemoryStream(_document, 0, _document.Length, writable: false, publiclyVisible: true);
            context = await _processor.DecryptAsync(input, buffer, _crypto.Encryptor, includeDecryptionContext: true, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (OperationNames.RecordFailure(telemetry, exception))
        {
            throw;
        }
        catch
        {
            PooledBufferWriterPool.Return(buffer);
            throw;
        }

        if (telemetry is not null)
        {
            telemetry.RecordDecrypt(start, BodyCrypto.ProcessorName(_processor), _document.Length, context is null ? 0 : 1, 0);
            if (context is not null)
            {
                foreach (DecryptionInfo info in context.DecryptionInfoList)
                {
                    telemetry.AddDecrypted(info.DataEncryptionKeyId, info.PathsDecrypted.Count);
                }
            }
        }

        var content = new PooledContentStream(buffer);
        if (typeof(T) == typeof(Stream))
        {
            return ((T)(object)content, context);
        }

        // Disposing the stream (the serializer does, and so do we) zeroes the plaintext and returns the buffer.
        using (content)
        {
            return (_serializer.FromStream<T>(content), context);
        }
    }

    private static bool IsObject(ReadOnlySpan<byte> json)
    {
        foreach (byte b in json)
        {
            if (b is (byte)' ' or (byte)'\t' or (byte)'\r' or (byte)'\n')
            {
                continue;
            }

            return b == (byte)'{';
        }

        return false;
    }
}

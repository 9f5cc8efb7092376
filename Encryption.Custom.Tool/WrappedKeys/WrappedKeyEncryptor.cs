using Encryption.Custom.Keys;
using Encryption.Custom.Tool.CommandLine;

namespace Encryption.Custom.Tool.WrappedKeys;

/// <summary>
/// The <see cref="Encryptor"/> of a decrypt run with a wrapped DEK: reads the document of the DEK the encrypted
/// document names, unwraps its key with the key-encryption key and keeps the result in the library's protected
/// memory. The raw key exists only inside the library's <see cref="EncryptionKeyUnwrapResult"/>, which is wiped
/// when disposed; nothing of it is written anywhere.
/// </summary>
/// <remarks>Serves one document, on one thread: the first key asked for is the only one.</remarks>
internal sealed class WrappedKeyEncryptor(WrappedKeyArguments arguments) : Encryptor, IAsyncDisposable
{
    private readonly DekDocumentSource _documents = DekDocumentSource.For(arguments);
    private DataEncryptionKey? _key;
    private string? _keyId;
    private bool _disposed;

    /// <exception cref="EncryptionException">The DEK cannot be read or unwrapped (<see cref="EncryptionErrorKind.KeyUnavailable"/>), or its algorithm is unknown.</exception>
    /// <exception cref="Errors.ToolException">A file cannot be read (exit code 3).</exception>
    public override async ValueTask<DataEncryptionKey> GetEncryptionKeyAsync(
        string dataEncryptionKeyId,
        string encryptionAlgorithm,
        CancellationToken cancellationToken = default)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (_key is not null)
        {
            return string.Equals(_keyId, dataEncryptionKeyId, StringComparison.Ordinal)
                && string.Equals(_key.EncryptionAlgorithm, encryptionAlgorithm, StringComparison.Ordinal)
                ? _key
                : throw new EncryptionException(EncryptionErrorKind.KeyUnavailable, "The tool unwraps one DEK per run, for one algorithm.", dataEncryptionKeyId);
        }

        DataEncryptionKeyProperties properties = await _documents.ReadAsync(dataEncryptionKeyId, cancellationToken).ConfigureAwait(false);
        EncryptionKeyWrapProvider provider = KeyEncryptionKeys.Open(arguments, properties.EncryptionKeyWrapMetadata);
        try
        {
            EncryptionKeyUnwrapResult unwrapped;
            try
            {
                unwrapped = await provider.UnwrapKeyAsync(properties.WrappedDataEncryptionKey, properties.EncryptionKeyWrapMetadata, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception exception) when (exception is not OperationCanceledException)
            {
                throw KeyErrors.UnwrapFailed(dataEncryptionKeyId, exception);
            }

            using (unwrapped)
            {
                if (unwrapped.DataEncryptionKey.Length != KeyErrors.RawKeyLength)
                {
                    throw KeyErrors.WrongLength(dataEncryptionKeyId, unwrapped.DataEncryptionKey.Length);
                }

                try
                {
                    // Create copies the key into protected memory; the unwrap result is wiped on dispose.
                    _key = DataEncryptionKey.Create(unwrapped.KeySpan, encryptionAlgorithm);
                }
                catch (ArgumentException)
                {
                    throw KeyErrors.UnsupportedAlgorithm(dataEncryptionKeyId, encryptionAlgorithm);
                }

                _keyId = dataEncryptionKeyId;
                return _key;
            }
        }
        finally
        {
            (provider as IDisposable)?.Dispose();
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        _key?.Dispose();
        await _documents.DisposeAsync().ConfigureAwait(false);
    }
}

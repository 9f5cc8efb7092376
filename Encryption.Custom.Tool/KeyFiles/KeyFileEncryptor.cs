using System.Security.Cryptography;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Tool.KeyFiles;

/// <summary>
/// The <see cref="Encryptor"/> of one run: the key from the key file answers for whatever DEK id the document
/// names (the operator chose the file). The protected key is created on the first request, for the algorithm
/// that request names (format 3 and the legacy format 2 derive different sub-keys from the same raw key); until
/// then the raw key waits in one pinned array, which creating the key, or disposing, wipes.
/// </summary>
/// <remarks>Serves one document, on one thread: a second algorithm in the same run is refused.</remarks>
internal sealed class KeyFileEncryptor : Encryptor, IDisposable
{
    // Pinned so that the garbage collector never leaves a copy of the raw key behind when compacting.
    private readonly byte[] _rawKey;
    private DataEncryptionKey? _key;
    private bool _disposed;

    private KeyFileEncryptor(byte[] rawKey)
    {
        _rawKey = rawKey;
    }

    /// <summary>Reads the key file at <paramref name="path"/>.</summary>
    /// <exception cref="Errors.ToolException">The file cannot be read or does not hold a key (exit code 3).</exception>
    public static KeyFileEncryptor Open(string path)
    {
        byte[] rawKey = GC.AllocateArray<byte>(HexKeyDecoder.KeyLength, pinned: true);
        try
        {
            KeyFileReader.Read(path, rawKey);
            return new KeyFileEncryptor(rawKey);
        }
        catch
        {
            CryptographicOperations.ZeroMemory(rawKey);
            throw;
        }
    }

    /// <summary>Returns the key file's key, created for <paramref name="encryptionAlgorithm"/> on first use.</summary>
    /// <exception cref="EncryptionException">
    /// The algorithm is unknown, or differs from the one the key was created for (<see cref="EncryptionErrorKind.KeyUnavailable"/>).
    /// </exception>
    /// <exception cref="ObjectDisposedException">The encryptor was disposed.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public override ValueTask<DataEncryptionKey> GetEncryptionKeyAsync(
        string dataEncryptionKeyId,
        string encryptionAlgorithm,
        CancellationToken cancellationToken = default)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        cancellationToken.ThrowIfCancellationRequested();
        if (_key is null)
        {
            try
            {
                // Create copies the key into protected memory and wipes the array.
                _key = DataEncryptionKey.Create(_rawKey, encryptionAlgorithm);
            }
            catch (ArgumentException)
            {
                throw new EncryptionException(
                    EncryptionErrorKind.KeyUnavailable,
                    $"The key file's key cannot be used with the algorithm '{encryptionAlgorithm}'.",
                    dataEncryptionKeyId);
            }
            finally
            {
                CryptographicOperations.ZeroMemory(_rawKey);
            }
        }
        else if (!string.Equals(_key.EncryptionAlgorithm, encryptionAlgorithm, StringComparison.Ordinal))
        {
            throw new EncryptionException(
                EncryptionErrorKind.KeyUnavailable,
                $"The key file's key is already in use with the algorithm '{_key.EncryptionAlgorithm}', not '{encryptionAlgorithm}'.",
                dataEncryptionKeyId);
        }

        return ValueTask.FromResult(_key);
    }

    /// <summary>Wipes the raw key if it was never used and releases the protected key.</summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        CryptographicOperations.ZeroMemory(_rawKey);
        _key?.Dispose();
    }
}

using System.Collections.Concurrent;
using System.Diagnostics;
using System.Security.Cryptography;
using System.Text;
using Encryption.Custom.Keys.Local;

namespace Encryption.Custom;

/// <summary>
/// A key-wrap provider whose key-encryption keys live in this process: RSA keys (RSA-OAEP, RSA-OAEP-256) from a
/// PEM or JWK file, and AES keys (RFC 3394 <c>AES-KW</c>, RFC 5649 <c>AES-KWP</c>). For development and tests;
/// in production use a key store such as Azure Key Vault.
/// </summary>
/// <remarks>
/// Keys are registered under a name; metadata created by <see cref="CreateMetadata"/> names the key and the
/// algorithm, so that rewrapping to another local key (key rotation) works as with a remote key store.
/// </remarks>
public class LocalKeyWrapProvider : EncryptionKeyWrapProvider, IDisposable
{
    /// <summary>The metadata <see cref="EncryptionKeyWrapMetadata.Type"/> of local keys.</summary>
    public const string MetadataType = "local";

    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private readonly ConcurrentDictionary<string, LocalKeyEncryptionKey> _keys = new(StringComparer.Ordinal);
    private readonly TimeSpan _cacheTimeToLive;
    private readonly HashSet<string> _allowedKeyNames;
    private int _disposed;

    /// <summary>Creates a provider with no keys; add them with the <c>Add*</c> methods.</summary>
    /// <param name="options">Options; null for the defaults.</param>
    /// <exception cref="ArgumentOutOfRangeException">The cache time to live is negative and not infinite.</exception>
    /// <exception cref="ArgumentException">An allowed key name is null, empty or white space.</exception>
    public LocalKeyWrapProvider(LocalKeyWrapProviderOptions? options = null)
    {
        options ??= new LocalKeyWrapProviderOptions();
        _cacheTimeToLive = options.DataEncryptionKeyCacheTimeToLive;
        if (_cacheTimeToLive < TimeSpan.Zero && _cacheTimeToLive != Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(nameof(options), "The cache time to live must be non-negative or infinite.");
        }

        if (options.AllowedKeyNames.Any(string.IsNullOrWhiteSpace))
        {
            throw new ArgumentException("AllowedKeyNames holds a name that is null, empty or white space.", nameof(options));
        }

        _allowedKeyNames = new HashSet<string>(options.AllowedKeyNames, StringComparer.Ordinal);
    }

    /// <summary>Metadata naming a local key and a wrap algorithm.</summary>
    /// <param name="keyName">The name the key was added under.</param>
    /// <param name="algorithm">One of <see cref="KeyWrapAlgorithm"/>'s values that fits the key.</param>
    /// <exception cref="ArgumentException">
    /// An argument is null or empty, the key name is white space, or <paramref name="algorithm"/> is not one of
    /// <see cref="KeyWrapAlgorithm"/>'s values (refused here, so a typo never reaches a DEK document).
    /// </exception>
    public static EncryptionKeyWrapMetadata CreateMetadata(string keyName, string algorithm)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(keyName);
        ArgumentException.ThrowIfNullOrEmpty(algorithm);
        if (algorithm is not (KeyWrapAlgorithm.AesKeyWrap or KeyWrapAlgorithm.AesKeyWrapPadded or KeyWrapAlgorithm.RsaOaep or KeyWrapAlgorithm.RsaOaep256))
        {
            throw new ArgumentException(
                $"The wrap algorithm '{algorithm}' is not known; use one of KeyWrapAlgorithm's values: " +
                $"{KeyWrapAlgorithm.AesKeyWrap}, {KeyWrapAlgorithm.AesKeyWrapPadded} (AES keys), {KeyWrapAlgorithm.RsaOaep}, {KeyWrapAlgorithm.RsaOaep256} (RSA keys).",
                nameof(algorithm));
        }

        return new EncryptionKeyWrapMetadata(MetadataType, keyName, keyName, algorithm);
    }

    /// <summary>Adds an RSA key. The provider keeps its own copy; the caller still owns <paramref name="key"/>.</summary>
    /// <param name="name">The key name used in metadata.</param>
    /// <param name="key">The RSA key; with its private part to unwrap, or public only to wrap.</param>
    /// <exception cref="ArgumentException"><paramref name="name"/> is null, empty, white space or already used.</exception>
    /// <exception cref="ArgumentNullException"><paramref name="key"/> is null.</exception>
    /// <exception cref="ObjectDisposedException">The provider was disposed.</exception>
    public virtual void AddRsaKey(string name, RSA key)
    {
        ArgumentNullException.ThrowIfNull(key);
        RSA copy = RSA.Create();
        bool hasPrivateKey;
        try
        {
            // The PKCS#8 round trip copies the key without handing its parameters through ordinary arrays we would have to wipe.
            byte[] pkcs8 = key.ExportPkcs8PrivateKey();
            try
            {
                copy.ImportPkcs8PrivateKey(pkcs8, out _);
            }
            finally
            {
                CryptographicOperations.ZeroMemory(pkcs8);
            }

            hasPrivateKey = true;
        }
        catch (CryptographicException)
        {
            copy.ImportSubjectPublicKeyInfo(key.ExportSubjectPublicKeyInfo(), out _);
            hasPrivateKey = false;
        }

        Add(name, new LocalRsaKeyEncryptionKey(copy, hasPrivateKey));
    }

    /// <summary>Adds an AES key (16, 24 or 32 bytes), copied into a pinned buffer that is zeroed on dispose.</summary>
    /// <param name="name">The key name used in metadata.</param>
    /// <param name="key">The key bytes; the caller zeroes its own copy.</param>
    /// <exception cref="ArgumentException"><paramref name="name"/> is null, empty, white space or already used, or the key length is wrong.</exception>
    /// <exception cref="ObjectDisposedException">The provider was disposed.</exception>
    public virtual void AddAesKey(string name, ReadOnlySpan<byte> key) => Add(name, new LocalAesKeyEncryptionKey(key));

    /// <summary>Adds a key from a JSON Web Key (<c>"kty":"RSA"</c> or <c>"kty":"oct"</c>) in UTF-8 JSON.</summary>
    /// <param name="name">The key name used in metadata.</param>
    /// <param name="utf8Json">The JWK; the caller zeroes its buffer afterwards if it holds a private key.</param>
    /// <exception cref="ArgumentException"><paramref name="name"/> is null, empty, white space or already used.</exception>
    /// <exception cref="FormatException">The JSON is not a supported JWK.</exception>
    /// <exception cref="ObjectDisposedException">The provider was disposed.</exception>
    public virtual void AddJsonWebKey(string name, ReadOnlySpan<byte> utf8Json) => Add(name, JsonWebKeyReader.Read(utf8Json));

    /// <summary>Adds a key from a JWK file. The file's bytes are zeroed in memory once read.</summary>
    /// <param name="name">The key name used in metadata.</param>
    /// <param name="path">The file path.</param>
    /// <exception cref="ArgumentException">
    /// <paramref name="name"/> is null, empty, white space or already used, or <paramref name="path"/> is null, empty
    /// or looks like key material rather than a path.
    /// </exception>
    /// <exception cref="FormatException">The file is not a supported JWK (the message names the file).</exception>
    /// <exception cref="IOException">The file cannot be read (the message names the file).</exception>
    /// <exception cref="ObjectDisposedException">The provider was disposed.</exception>
    public virtual void AddJsonWebKeyFile(string name, string path)
    {
        ThrowIfNotAPath(path);
        byte[] content = File.ReadAllBytes(path);
        try
        {
            AddJsonWebKey(name, content);
        }
        catch (FormatException exception)
        {
            // Which of several key files is wrong is the first thing an operator needs; the reason never quotes key bytes.
            throw new FormatException($"The key file '{path}' is not a supported JSON Web Key: {exception.Message}", exception);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(content);
        }
    }

    /// <summary>Adds an RSA key from PEM text (<c>PRIVATE KEY</c>, <c>RSA PRIVATE KEY</c>, <c>PUBLIC KEY</c> or <c>RSA PUBLIC KEY</c>).</summary>
    /// <param name="name">The key name used in metadata.</param>
    /// <param name="pem">The PEM text; the caller zeroes its buffer afterwards if it holds a private key.</param>
    /// <exception cref="ArgumentException"><paramref name="name"/> is null, empty, white space or already used, or the PEM holds no RSA key.</exception>
    /// <exception cref="ObjectDisposedException">The provider was disposed.</exception>
    public virtual void AddRsaPem(string name, ReadOnlySpan<char> pem) => Add(name, ImportRsaPem(pem));

    /// <summary>Adds an RSA key from a PEM file. The file's bytes and characters are zeroed in memory once read.</summary>
    /// <param name="name">The key name used in metadata.</param>
    /// <param name="path">The file path.</param>
    /// <exception cref="ArgumentException">
    /// <paramref name="name"/> is null, empty, white space or already used, <paramref name="path"/> looks like key
    /// material rather than a path, or the file holds no RSA key (the message names the file).
    /// </exception>
    /// <exception cref="IOException">The file cannot be read (the message names the file).</exception>
    /// <exception cref="ObjectDisposedException">The provider was disposed.</exception>
    public virtual void AddRsaPemFile(string name, string path)
    {
        ThrowIfNotAPath(path);
        byte[] content = File.ReadAllBytes(path);
        char[] text = GC.AllocateUninitializedArray<char>(Encoding.UTF8.GetMaxCharCount(content.Length), pinned: true);
        try
        {
            int length = Encoding.UTF8.GetChars(content, text);
            LocalRsaKeyEncryptionKey key;
            try
            {
                key = ImportRsaPem(text.AsSpan(0, length));
            }
            catch (Exception exception) when (exception is ArgumentException or CryptographicException)
            {
                throw new ArgumentException($"The key file '{path}' holds no supported RSA key in PEM: {exception.Message}", nameof(path), exception);
            }

            Add(name, key);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(content);
            Array.Clear(text);
        }
    }

    /// <inheritdoc/>
    public override Task<EncryptionKeyWrapResult> WrapKeyAsync(
        ReadOnlyMemory<byte> key,
        EncryptionKeyWrapMetadata metadata,
        CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        (LocalKeyEncryptionKey kek, string algorithm) = Resolve(metadata);
        byte[] wrapped = kek.Wrap(key.Span, algorithm);
        return Task.FromResult(new EncryptionKeyWrapResult(wrapped, metadata));
    }

    /// <inheritdoc/>
    public override Task<EncryptionKeyUnwrapResult> UnwrapKeyAsync(
        ReadOnlyMemory<byte> wrappedKey,
        EncryptionKeyWrapMetadata metadata,
        CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        (LocalKeyEncryptionKey kek, string algorithm) = Resolve(metadata);
        byte[]? raw;
        try
        {
            raw = kek.TryUnwrap(wrappedKey.Span, algorithm);
        }
        catch (InvalidOperationException exception)
        {
            throw new EncryptionException(
                EncryptionErrorKind.KeyUnavailable,
                $"The local key '{KeyName(metadata)}' cannot unwrap: it has no private part.",
                innerException: exception);
        }

        if (raw is null)
        {
            throw new EncryptionException(
                EncryptionErrorKind.KeyUnavailable,
                $"The wrapped key does not unwrap with the local key '{KeyName(metadata)}' and algorithm '{algorithm}'.");
        }

        return Task.FromResult(new EncryptionKeyUnwrapResult(raw, _cacheTimeToLive));
    }

    /// <summary>Zeroes and releases every key.</summary>
    public void Dispose()
    {
        Dispose(disposing: true);
        GC.SuppressFinalize(this);
    }

    /// <summary>Zeroes and releases every key.</summary>
    /// <param name="disposing">True from <see cref="Dispose()"/>.</param>
    protected virtual void Dispose(bool disposing)
    {
        if (disposing && Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            foreach (LocalKeyEncryptionKey key in _keys.Values)
            {
                key.Dispose();
            }

            _keys.Clear();
        }
    }

    /// <summary>
    /// Refuses key material passed where a file path belongs, before any error could quote it: file errors name
    /// the file (so an operator knows which one), which must never put a key in a message or a log.
    /// </summary>
    private static void ThrowIfNotAPath(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        if (path.Contains("-----BEGIN", StringComparison.Ordinal) || path.TrimStart().StartsWith('{'))
        {
            throw new ArgumentException("This looks like key material, not a file path (it is not shown here): pass the path of the key file.", nameof(path));
        }
    }

    private static LocalRsaKeyEncryptionKey ImportRsaPem(ReadOnlySpan<char> pem)
    {
        RSA rsa = RSA.Create();
        try
        {
            rsa.ImportFromPem(pem);
        }
        catch
        {
            rsa.Dispose();
            throw;
        }

        bool hasPrivateKey = pem.Contains("PRIVATE KEY-----", StringComparison.Ordinal);
        return new LocalRsaKeyEncryptionKey(rsa, hasPrivateKey);
    }

    private static string KeyName(EncryptionKeyWrapMetadata metadata) => metadata.Name ?? metadata.Value;

    private void Add(string name, LocalKeyEncryptionKey key)
    {
        try
        {
            ArgumentException.ThrowIfNullOrWhiteSpace(name);
            ObjectDisposedException.ThrowIf(_disposed != 0, this);
            if (!_keys.TryAdd(name, key))
            {
                throw new ArgumentException($"A local key named '{name}' was already added.", nameof(name));
            }
        }
        catch
        {
            key.Dispose();
            throw;
        }
    }

    private (LocalKeyEncryptionKey Key, string Algorithm) Resolve(EncryptionKeyWrapMetadata metadata)
    {
        ArgumentNullException.ThrowIfNull(metadata);
        ObjectDisposedException.ThrowIf(_disposed != 0, this);
        if (!string.Equals(metadata.Type, MetadataType, StringComparison.Ordinal))
        {
            // Microsoft's idiom new EncryptionKeyWrapMetadata(name, value) makes type "custom": name the factory to use.
            throw new ArgumentException(
                $"The metadata type '{metadata.Type}' is not '{MetadataType}': create local key metadata with LocalKeyWrapProvider.CreateMetadata(keyName, algorithm).",
                nameof(metadata));
        }

        if (string.IsNullOrEmpty(metadata.Algorithm))
        {
            throw new ArgumentException("The metadata names no wrap algorithm.", nameof(metadata));
        }

        string name = KeyName(metadata);
        if (_allowedKeyNames.Count > 0 && !_allowedKeyNames.Contains(name))
        {
            throw new EncryptionException(EncryptionErrorKind.KeyUnavailable, $"The local key '{name}' is not allowed by this provider (option AllowedKeyNames).");
        }

        if (!_keys.TryGetValue(name, out LocalKeyEncryptionKey? key))
        {
            throw new EncryptionException(EncryptionErrorKind.KeyUnavailable, $"No local key named '{name}' was added to the provider.");
        }

        return (key, metadata.Algorithm);
    }
}

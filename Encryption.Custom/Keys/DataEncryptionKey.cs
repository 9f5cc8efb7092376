using Encryption.Custom.Crypto;
using Encryption.Custom.Keys;

namespace Encryption.Custom;

/// <summary>
/// A data encryption key (DEK): the 32-byte root key that encrypts document values, together with the keys
/// derived from it, ready to encrypt and decrypt.
/// </summary>
/// <remarks>
/// The library's own instances keep their key material in protected native memory and never expose it.
/// Instances are safe for concurrent use. Disposing a key while an operation uses it is safe: its resources are
/// released when that operation ends (see <see cref="Dispose()"/>).
/// </remarks>
public abstract partial class DataEncryptionKey : IDisposable
{
    /// <summary>For subclasses (and mocking).</summary>
    protected DataEncryptionKey()
    {
    }

    /// <summary>The algorithm this key encrypts with (see <see cref="CosmosEncryptionAlgorithm"/>).</summary>
    public abstract string EncryptionAlgorithm { get; }

    /// <summary>The exact number of bytes <see cref="EncryptData(ReadOnlySpan{byte}, Span{byte})"/> writes.</summary>
    /// <param name="plainTextLength">The plaintext length in bytes.</param>
    /// <exception cref="ArgumentOutOfRangeException">The length is negative or too large.</exception>
    public abstract int GetEncryptByteCount(int plainTextLength);

    /// <summary>The largest number of bytes <see cref="DecryptData(ReadOnlySpan{byte}, Span{byte})"/> can write.</summary>
    /// <param name="cipherTextLength">The ciphertext length in bytes.</param>
    /// <exception cref="ArgumentOutOfRangeException">The length is negative.</exception>
    public abstract int GetDecryptByteCount(int cipherTextLength);

    /// <summary>Encrypts <paramref name="plainText"/> into <paramref name="destination"/>.</summary>
    /// <returns>The number of bytes written.</returns>
    /// <exception cref="ArgumentException"><paramref name="destination"/> is shorter than <see cref="GetEncryptByteCount"/>.</exception>
    /// <exception cref="ObjectDisposedException">The key was disposed.</exception>
    public abstract int EncryptData(ReadOnlySpan<byte> plainText, Span<byte> destination);

    /// <summary>Authenticates and decrypts <paramref name="cipherText"/> into <paramref name="destination"/>.</summary>
    /// <returns>The number of plaintext bytes written.</returns>
    /// <exception cref="ArgumentException"><paramref name="destination"/> is shorter than <see cref="GetDecryptByteCount"/>.</exception>
    /// <exception cref="EncryptionException">The ciphertext is not authentic for this key (<see cref="EncryptionErrorKind.InvalidCipherText"/>).</exception>
    /// <exception cref="ObjectDisposedException">The key was disposed.</exception>
    public abstract int DecryptData(ReadOnlySpan<byte> cipherText, Span<byte> destination);

    /// <summary>Encrypts <paramref name="plainText"/> into a new array.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="plainText"/> is null.</exception>
    /// <exception cref="ObjectDisposedException">The key was disposed.</exception>
    public byte[] EncryptData(byte[] plainText)
    {
        ArgumentNullException.ThrowIfNull(plainText);
        using DataEncryptionKeyLease lease = DataEncryptionKeyLease.Acquire(this);
        return EncryptLeased(plainText);
    }

    /// <summary>Authenticates and decrypts <paramref name="cipherText"/> into a new array.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="cipherText"/> is null.</exception>
    /// <exception cref="EncryptionException">The ciphertext is not authentic for this key.</exception>
    /// <exception cref="ObjectDisposedException">The key was disposed.</exception>
    public byte[] DecryptData(byte[] cipherText)
    {
        ArgumentNullException.ThrowIfNull(cipherText);
        using DataEncryptionKeyLease lease = DataEncryptionKeyLease.Acquire(this);
        return DecryptLeased(cipherText);
    }

    /// <summary>
    /// Creates a key from raw key bytes. The bytes are copied into protected memory and
    /// <paramref name="rawKey"/> is zeroed, so no copy stays in ordinary memory.
    /// </summary>
    /// <param name="rawKey">The 32-byte root key; zeroed on return.</param>
    /// <param name="encryptionAlgorithm">The algorithm (see <see cref="CosmosEncryptionAlgorithm"/>).</param>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="ArgumentException">The key is not 32 bytes or the algorithm is unknown.</exception>
    public static DataEncryptionKey Create(byte[] rawKey, string encryptionAlgorithm)
    {
        ArgumentNullException.ThrowIfNull(rawKey);
        return Create(rawKey.AsSpan(), encryptionAlgorithm);
    }

    /// <summary>Creates a key from raw key bytes, which are copied into protected memory and zeroed.</summary>
    /// <param name="rawKey">The 32-byte root key; zeroed on return.</param>
    /// <param name="encryptionAlgorithm">The algorithm (see <see cref="CosmosEncryptionAlgorithm"/>).</param>
    /// <exception cref="ArgumentNullException"><paramref name="encryptionAlgorithm"/> is null.</exception>
    /// <exception cref="ArgumentException">The key is not 32 bytes or the algorithm is unknown.</exception>
    public static DataEncryptionKey Create(Span<byte> rawKey, string encryptionAlgorithm)
    {
        ArgumentNullException.ThrowIfNull(encryptionAlgorithm);
        return ProtectedDataEncryptionKey.CreateProtected(rawKey, encryptionAlgorithm);
    }

    /// <summary>Creates a key from 32 fresh random bytes that never exist outside protected memory for longer than the copy.</summary>
    /// <param name="encryptionAlgorithm">The algorithm (see <see cref="CosmosEncryptionAlgorithm"/>).</param>
    /// <exception cref="ArgumentNullException"><paramref name="encryptionAlgorithm"/> is null.</exception>
    /// <exception cref="ArgumentException">The algorithm is unknown.</exception>
    public static DataEncryptionKey Generate(string encryptionAlgorithm)
    {
        Span<byte> rawKey = stackalloc byte[32];
        System.Security.Cryptography.RandomNumberGenerator.Fill(rawKey);
        return Create(rawKey, encryptionAlgorithm);
    }

    /// <summary>Encrypts for a caller that holds a <see cref="DataEncryptionKeyLease"/> on this key.</summary>
    /// <remarks>
    /// The library's keys take a reference of their own in the public methods (as a <c>SafeHandle</c> does around a
    /// native call), and a second reference fails once the owner has disposed; a lease holder calls these instead.
    /// </remarks>
    internal virtual int EncryptLeased(ReadOnlySpan<byte> plainText, Span<byte> destination) => EncryptData(plainText, destination);

    /// <summary>
    /// Whether <see cref="EncryptBatchLeased"/> is worth calling: the library's own keys where the CPU encrypts
    /// several CBC chains at once (docs/key-memory.md, "Derived key material"). Otherwise callers encrypt value by value.
    /// </summary>
    internal virtual bool EncryptsBatches => false;

    /// <summary>
    /// Encrypts a batch of format-3 cells for a caller that holds a lease (see
    /// <see cref="Crypto.AeadAes256CbcHmacSha256.EncryptBatch"/>); only where <see cref="EncryptsBatches"/>.
    /// </summary>
    /// <exception cref="NotSupportedException">The key does not encrypt batches.</exception>
    internal virtual void EncryptBatchLeased(ReadOnlySpan<byte> plainTexts, ReadOnlySpan<byte> ivContexts, Span<byte> output, ReadOnlySpan<Crypto.Chains.AeadBatchValue> values) =>
        throw new NotSupportedException("This key encrypts value by value.");

    /// <summary>Decrypts for a caller that holds a <see cref="DataEncryptionKeyLease"/> on this key.</summary>
    internal virtual int DecryptLeased(ReadOnlySpan<byte> cipherText, Span<byte> destination) => DecryptData(cipherText, destination);

    /// <summary>
    /// Decrypts without throwing on an inauthentic ciphertext, for callers that hold a lease and report failures per item.
    /// </summary>
    /// <returns><see langword="false"/> when the ciphertext is not authentic for this key.</returns>
    internal virtual bool TryDecryptLeased(ReadOnlySpan<byte> cipherText, Span<byte> destination, out int bytesWritten)
    {
        try
        {
            bytesWritten = DecryptLeased(cipherText, destination);
            return true;
        }
        catch (EncryptionException)
        {
            bytesWritten = 0;
            return false;
        }
    }

    /// <summary>
    /// Encrypts, for a caller that holds a lease, with the IV HMAC-SHA256(ivKey, <paramref name="ivContext"/> ‖
    /// <paramref name="plainText"/>)[0..16] (wire-format.md, "Deterministic values"): equal context and plaintext give
    /// equal ciphertexts. Only the library's own keys can; a key implemented elsewhere is refused.
    /// </summary>
    /// <returns>The number of bytes written: exactly <see cref="GetEncryptByteCount"/>.</returns>
    /// <exception cref="EncryptionException">The key cannot encrypt deterministically (<see cref="EncryptionErrorKind.InvalidOptions"/>).</exception>
    internal virtual int EncryptDeterministicLeased(ReadOnlySpan<byte> ivContext, ReadOnlySpan<byte> plainText, Span<byte> destination) =>
        throw new EncryptionException(
            EncryptionErrorKind.InvalidOptions,
            $"Deterministic encryption needs one of the library's own data encryption keys; a key of type '{GetType().Name}' cannot derive the IV key.");

    /// <summary>
    /// For a caller that holds a lease: whether <paramref name="cell"/> (authenticated, with plaintext
    /// <paramref name="plainText"/>) carries the deterministic IV of <paramref name="ivContext"/>, as
    /// <see cref="EncryptDeterministicLeased"/> would have written it. A key implemented elsewhere cannot encrypt
    /// deterministically, so none of its cells is deterministic.
    /// </summary>
    internal virtual bool HasDeterministicIvLeased(ReadOnlySpan<byte> ivContext, ReadOnlySpan<byte> plainText, ReadOnlySpan<byte> cell) => false;

    /// <summary>
    /// Encrypts, for a caller that holds a lease, into a bound cell (wire-format.md, "Bound cells") whose tag covers
    /// <paramref name="associatedData"/>. Only the library's own keys can; a key implemented elsewhere is refused.
    /// </summary>
    /// <returns>The number of bytes written: exactly <see cref="GetEncryptByteCount"/>.</returns>
    /// <exception cref="EncryptionException">The key cannot bind cells (<see cref="EncryptionErrorKind.InvalidOptions"/>).</exception>
    internal virtual int EncryptBoundLeased(ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> plainText, Span<byte> destination) =>
        throw CannotBind();

    /// <summary>
    /// For a caller that holds a lease: authenticates a bound cell under <paramref name="associatedData"/> and, when it
    /// verifies, decrypts it. A key implemented elsewhere is refused.
    /// </summary>
    /// <exception cref="EncryptionException">The key cannot bind cells (<see cref="EncryptionErrorKind.InvalidOptions"/>).</exception>
    internal virtual AeadCellCheck TryDecryptBoundLeased(ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> cipherText, Span<byte> destination, out int bytesWritten) =>
        throw CannotBind();

    /// <summary>
    /// For a caller that holds a lease: computes the document commitment (wire-format.md "Document commitment") of a
    /// document with digest <paramref name="documentDigest"/>, listed paths <paramref name="selectorBlock"/> and cells
    /// <paramref name="chain"/> into <paramref name="destination"/>. Only the library's own keys can; a key
    /// implemented elsewhere is refused (it cannot bind either, and a commitment needs binding).
    /// </summary>
    /// <exception cref="EncryptionException">The key cannot bind (<see cref="EncryptionErrorKind.InvalidOptions"/>).</exception>
    internal virtual void ComputeCommitmentLeased(ReadOnlySpan<byte> documentDigest, ReadOnlySpan<byte> selectorBlock, in Crypto.Binding.CommitmentChain chain, Span<byte> destination) =>
        throw CannotBind();

    /// <summary>
    /// For a caller that holds a lease: writes HMAC-SHA256 under the key's query-token sub-key over
    /// <paramref name="first"/> ‖ <paramref name="second"/> ‖ <paramref name="third"/> into <paramref name="mac"/>
    /// (32 bytes): an untruncated query token (docs/queries.md "Range and prefix queries"). Only the library's own keys
    /// can; a key implemented elsewhere is refused (its sub-keys are out of reach).
    /// </summary>
    /// <exception cref="EncryptionException">The key cannot compute query tokens (<see cref="EncryptionErrorKind.InvalidOptions"/>).</exception>
    internal virtual void ComputeQueryTokenLeased(ReadOnlySpan<byte> first, ReadOnlySpan<byte> second, ReadOnlySpan<byte> third, Span<byte> mac) =>
        throw new EncryptionException(
            EncryptionErrorKind.InvalidOptions,
            "Query tokens (range or prefix queries in the encryption policy) need a data encryption key created by this library; this key is implemented elsewhere.");

    /// <summary>Encrypts into a new array, for a caller that holds a lease.</summary>
    internal byte[] EncryptLeased(ReadOnlySpan<byte> plainText)
    {
        byte[] cipherText = new byte[GetEncryptByteCount(plainText.Length)];
        int written = EncryptLeased(plainText, cipherText);
        return written == cipherText.Length ? cipherText : cipherText.AsSpan(0, written).ToArray();
    }

    /// <summary>Decrypts into a new array, for a caller that holds a lease; no other copy of the plaintext is left behind.</summary>
    internal byte[] DecryptLeased(ReadOnlySpan<byte> cipherText)
    {
        byte[] buffer = new byte[GetDecryptByteCount(cipherText.Length)];
        bool returned = false;
        try
        {
            int written = DecryptLeased(cipherText, buffer);
            if (written == buffer.Length)
            {
                returned = true;
                return buffer;
            }

            return buffer.AsSpan(0, written).ToArray();
        }
        finally
        {
            // The buffer is longer than the plaintext (padding): wipe it rather than leave plaintext to the GC.
            if (!returned)
            {
                System.Security.Cryptography.CryptographicOperations.ZeroMemory(buffer);
            }
        }
    }

    private EncryptionException CannotBind() =>
        new(
            EncryptionErrorKind.InvalidOptions,
            $"Bound values need one of the library's own data encryption keys; a key of type '{GetType().Name}' cannot derive the bound cell MAC key.");

    /// <summary>Releases the key's resources; called once, when the owner has disposed and the last lease has ended.</summary>
    /// <param name="disposing"><see langword="true"/> when the last reference was released; <see langword="false"/> from a finalizer.</param>
    protected virtual void Dispose(bool disposing)
    {
    }
}

// AEAD_AES_256_CBC_HMAC_SHA256, the cell cipher of Cosmos DB client-side encryption formats 2 and 3
// (wire-format.md §1; the SQL Server Always Encrypted construction):
//   cell = 0x01 ‖ tag(32) ‖ IV(16) ‖ C,   C = AES-256-CBC(encKey, IV, PKCS#7(plaintext))
//   tag  = HMAC-SHA256(macKey, 0x01 ‖ IV ‖ C ‖ 0x01)
//   IV   = 16 CSPRNG bytes (randomized) or HMAC-SHA256(ivKey, context ‖ plaintext)[0..16] (deterministic)
//   |cell| = 49 + 16·(⌊n/16⌋ + 1) for an n-byte plaintext
// Keyed state (cipher and HMAC contexts) is cached per instance in a bounded AeadContextPool and built through the
// AeadKeySource only on a pool miss; with the OpenSSL backend that state lives in the native heap and is freed
// (and cleansed by OpenSSL) when the instance is disposed.
using System.Diagnostics;

namespace Encryption.Custom.Crypto;

/// <summary>
/// Encrypts and authenticates values under one data encryption key. Safe for concurrent use; allocation-free per
/// operation after warm-up (the array-returning conveniences allocate their results).
/// </summary>
internal sealed partial class AeadAes256CbcHmacSha256 : IDisposable
{
    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private readonly AeadContextPool _pool;

    /// <summary>Creates an AEAD over <paramref name="keySource"/> with the default backend.</summary>
    /// <param name="keySource">Supplies the derived sub-keys; the AEAD does not own it.</param>
    /// <exception cref="ArgumentNullException"><paramref name="keySource"/> is null.</exception>
    public AeadAes256CbcHmacSha256(AeadKeySource keySource)
        : this(keySource, AeadBackend.Default)
    {
    }

    /// <summary>Creates an AEAD over <paramref name="keySource"/> with the given backend (the seam tests use).</summary>
    /// <param name="keySource">Supplies the derived sub-keys; the AEAD does not own it.</param>
    /// <param name="backend">The cryptographic implementation.</param>
    /// <param name="maxIdleContexts">How many keyed contexts to keep between operations (default: 2 per processor, 8 to 128).</param>
    /// <exception cref="ArgumentNullException"><paramref name="keySource"/> or <paramref name="backend"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="maxIdleContexts"/> is zero or negative.</exception>
    internal AeadAes256CbcHmacSha256(AeadKeySource keySource, AeadBackend backend, int? maxIdleContexts = null)
    {
        ArgumentNullException.ThrowIfNull(keySource);
        ArgumentNullException.ThrowIfNull(backend);

        // Enough idle contexts for every thread that can run at once, bounded because each holds key schedules.
        int capacity = maxIdleContexts ?? Math.Clamp(Environment.ProcessorCount * 2, 8, 128);
        _pool = new AeadContextPool(backend, keySource, capacity);
        Backend = backend;
    }

    /// <summary>The cryptographic implementation in use.</summary>
    internal AeadBackend Backend { get; }

    /// <summary>Contexts created and not yet freed (tests check that dispose frees every one).</summary>
    internal int LiveContexts => _pool.LiveContexts;

    /// <summary>The exact length of the cell for a plaintext of <paramref name="plainTextLength"/> bytes.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The length is negative or its cell would not fit in an <see cref="int"/>.</exception>
    public static int GetCipherTextLength(int plainTextLength)
    {
        if ((uint)plainTextLength > AeadCellLayout.MaxPlainTextLength)
        {
            AeadErrors.ThrowLengthOutOfRange(nameof(plainTextLength));
        }

        return AeadCellLayout.HeaderSize + (((plainTextLength / AeadCellLayout.BlockSize) + 1) * AeadCellLayout.BlockSize);
    }

    /// <summary>
    /// The largest plaintext a cell of <paramref name="cipherTextLength"/> bytes can hold (padding is at least one byte);
    /// the destination size <see cref="Decrypt(ReadOnlySpan{byte}, Span{byte})"/> requires.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The length is negative.</exception>
    public static int GetMaxPlainTextLength(int cipherTextLength)
    {
        if (cipherTextLength < 0)
        {
            AeadErrors.ThrowLengthOutOfRange(nameof(cipherTextLength));
        }

        return Math.Max(0, cipherTextLength - AeadCellLayout.HeaderSize - 1);
    }

    /// <summary>
    /// Frees the cached keyed contexts. Operations already running finish normally and free their context when they
    /// end; operations started afterwards throw <see cref="ObjectDisposedException"/>.
    /// </summary>
    public void Dispose() => _pool.Dispose();

    private void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(_pool.IsDisposed, this);
}

// Keyed state of one AEAD_AES_256_CBC_HMAC_SHA256 instance (wire-format.md §1), used by one thread at a time.
//   AES-256-CBC without padding under encKey (the AEAD pads by hand),
//   tag  = HMAC-SHA256(macKey, 0x01 ‖ IV ‖ C ‖ 0x01),
//   bound tag = HMAC-SHA256(boundMacKey, A ‖ IV ‖ C ‖ u64be(8·|A|)) for bound cells (wire-format.md "Bound cells"),
//   IV   = HMAC-SHA256(ivKey, context ‖ plaintext)[0..16] for deterministic IVs (the caller's context binds the
//          path and type of the value, wire-format.md "Deterministic values").
// Each part is keyed lazily, the first time it is needed, through AeadKeySource.UseSubKey: a decrypt-only
// workload never builds an encryption key schedule and randomized encryption never builds the IV key.
// One class for every backend: the backend only makes the keyed primitives (CbcCipher, HmacSha256); their keying
// and lifetime live here once. All of it is key-equivalent state: it exists only while the context is pooled or in
// use (the pool bounds how many exist), and Dispose frees every part.
using System.Buffers.Binary;
using System.Diagnostics;
using Encryption.Custom.Crypto.Chains;
using Encryption.Custom.Native.Memory;

namespace Encryption.Custom.Crypto;

/// <summary>
/// The keyed cipher and HMAC state one operation works with. A context is owned by exactly one operation at a
/// time (the <see cref="AeadContextPool"/> guarantees it), so implementations need no locking.
/// </summary>
internal sealed partial class AeadContext : IDisposable
{
    private readonly AeadBackend _backend;
    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private readonly AeadKeySource _keySource;
    private CbcCipher? _encryptor;
    private CbcCipher? _decryptor;
    // One keyed HMAC per sub-key that keys one (every sub-key but Encryption), made on first use.
    private readonly HmacSha256?[] _macs = new HmacSha256?[(int)AeadSubKey.QueryToken + 1];

    /// <param name="backend">Makes the keyed primitives.</param>
    /// <param name="keySource">Where the sub-keys come from when a part is keyed for the first time.</param>
    public AeadContext(AeadBackend backend, AeadKeySource keySource)
        : this(backend, keySource, ProtectedMemoryPool.Shared, InterleavedAesCbcEncryptor.IsSupported)
    {
    }

    /// <param name="backend">Makes the keyed primitives.</param>
    /// <param name="keySource">Where the sub-keys come from when a part is keyed for the first time.</param>
    /// <param name="roundKeyPool">Where the multi-chain encryptor keeps its round keys (tests pass a pool they can read as a dump would).</param>
    /// <param name="interleavedChains">Whether <see cref="EncryptCbcChains"/> interleaves chains with AES-NI (false: value by
    /// value through the backend's cipher, as where AES-NI is missing).</param>
    /// <exception cref="PlatformNotSupportedException"><paramref name="interleavedChains"/> is true without AES-NI.</exception>
    internal AeadContext(AeadBackend backend, AeadKeySource keySource, ProtectedMemoryPool roundKeyPool, bool interleavedChains)
    {
        if (interleavedChains && !InterleavedAesCbcEncryptor.IsSupported)
        {
            throw new PlatformNotSupportedException("AES-NI is not available.");
        }

        _backend = backend;
        _keySource = keySource;
        _roundKeyPool = roundKeyPool;
        _interleavedChains = interleavedChains;
    }

    /// <summary>
    /// AES-256-CBC-encrypts the concatenation of <paramref name="first"/> and <paramref name="second"/> (each a whole
    /// number of blocks, already padded) with <paramref name="iv"/> into <paramref name="destination"/> (same total length).
    /// </summary>
    public void EncryptCbc(ReadOnlySpan<byte> iv, ReadOnlySpan<byte> first, ReadOnlySpan<byte> second, Span<byte> destination)
    {
        CbcCipher cipher = _encryptor ??= CreateCipher(encrypting: true);
        cipher.Reset(iv);
        cipher.Update(first, destination[..first.Length]);
        cipher.Update(second, destination.Slice(first.Length, second.Length));
    }

    /// <summary>
    /// AES-256-CBC-decrypts <paramref name="cipherText"/> (a whole number of blocks) with <paramref name="iv"/>, writing the
    /// first <c>firstDestination.Length</c> bytes of the result to <paramref name="firstDestination"/> and the rest to
    /// <paramref name="secondDestination"/>. Padding is left in place.
    /// </summary>
    public void DecryptCbc(ReadOnlySpan<byte> iv, ReadOnlySpan<byte> cipherText, Span<byte> firstDestination, Span<byte> secondDestination)
    {
        CbcCipher cipher = _decryptor ??= CreateCipher(encrypting: false);
        cipher.Reset(iv);
        cipher.Update(cipherText[..firstDestination.Length], firstDestination);
        cipher.Update(cipherText[firstDestination.Length..], secondDestination);
    }

    /// <summary>Writes HMAC-SHA256(macKey, 0x01 ‖ <paramref name="ivAndCipherText"/> ‖ 0x01) to <paramref name="tag"/> (32 bytes).</summary>
    public void ComputeTag(ReadOnlySpan<byte> ivAndCipherText, Span<byte> tag)
    {
        int length = ivAndCipherText.Length + 2;
        if (length <= AeadCellLayout.MaxStackBufferSize)
        {
            // Small cells: one contiguous input costs one native call instead of three (ciphertext is not secret).
            Span<byte> input = stackalloc byte[AeadCellLayout.MaxStackBufferSize];
            input[0] = AeadCellLayout.Version;
            ivAndCipherText.CopyTo(input[1..]);
            input[length - 1] = AeadCellLayout.VersionLength;
            ComputeMac(AeadSubKey.Mac, input[..length], default, default, tag);
        }
        else
        {
            ReadOnlySpan<byte> version = [AeadCellLayout.Version];
            ReadOnlySpan<byte> versionLength = [AeadCellLayout.VersionLength];
            ComputeMac(AeadSubKey.Mac, version, ivAndCipherText, versionLength, tag);
        }
    }

    /// <summary>
    /// Writes HMAC-SHA256(boundMacKey, <paramref name="associatedData"/> ‖ <paramref name="ivAndCipherText"/> ‖
    /// u64be(8·|associatedData|)) to <paramref name="tag"/> (32 bytes): the tag of a bound cell.
    /// </summary>
    public void ComputeBoundTag(ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> ivAndCipherText, Span<byte> tag)
    {
        HmacSha256 hmac = Hmac(AeadSubKey.BoundMac);
        int length = associatedData.Length + ivAndCipherText.Length + AeadCellLayout.AssociatedDataLengthSize;
        if (length <= AeadCellLayout.MaxStackBufferSize)
        {
            // Small cells: one contiguous input, one native call (nothing here is secret).
            Span<byte> input = stackalloc byte[AeadCellLayout.MaxStackBufferSize];
            associatedData.CopyTo(input);
            ivAndCipherText.CopyTo(input[associatedData.Length..]);
            BinaryPrimitives.WriteUInt64BigEndian(input[(length - AeadCellLayout.AssociatedDataLengthSize)..], 8UL * (ulong)associatedData.Length);
            hmac.Compute(input[..length], default, default, tag);
        }
        else
        {
            Span<byte> bitLength = stackalloc byte[AeadCellLayout.AssociatedDataLengthSize];
            BinaryPrimitives.WriteUInt64BigEndian(bitLength, 8UL * (ulong)associatedData.Length);
            hmac.Compute(associatedData, ivAndCipherText, bitLength, tag);
        }
    }

    /// <summary>
    /// Writes HMAC-SHA256(key, <paramref name="first"/> ‖ <paramref name="second"/> ‖ <paramref name="third"/>) to
    /// <paramref name="mac"/> (32 bytes) under one of the document-level keys: <see cref="AeadSubKey.Commitment"/> (the
    /// document commitment, wire-format.md "Document commitment") or <see cref="AeadSubKey.QueryToken"/> (a query token
    /// before truncation, docs/queries.md "Range and prefix queries").
    /// </summary>
    public void ComputeDocumentMac(AeadSubKey key, ReadOnlySpan<byte> first, ReadOnlySpan<byte> second, ReadOnlySpan<byte> third, Span<byte> mac)
    {
        Debug.Assert(key is AeadSubKey.Commitment or AeadSubKey.QueryToken, "only the document-level keys MAC caller-laid-out input");
        ComputeMac(key, first, second, third, mac);
    }

    /// <summary>Writes HMAC-SHA256(ivKey, <paramref name="context"/> ‖ <paramref name="plainText"/>) to <paramref name="mac"/> (32 bytes).</summary>
    public void ComputeIvMac(ReadOnlySpan<byte> context, ReadOnlySpan<byte> plainText, Span<byte> mac) =>
        ComputeMac(AeadSubKey.Iv, context, plainText, default, mac);

    /// <summary>
    /// Frees the keyed state (native implementations cleanse key schedules as they free them; the multi-chain
    /// encryptor wipes its round keys and returns their protected slot).
    /// </summary>
    public void Dispose()
    {
        _encryptor?.Dispose();
        _decryptor?.Dispose();
        _chainEncryptor?.Dispose();
        _chainEncryptor = null;
        foreach (HmacSha256? hmac in _macs)
        {
            hmac?.Dispose();
        }

        _encryptor = _decryptor = null;
        Array.Clear(_macs);
    }

    // HMAC-SHA256(key, first ‖ second ‖ third) to mac (32 bytes).
    private void ComputeMac(AeadSubKey key, ReadOnlySpan<byte> first, ReadOnlySpan<byte> second, ReadOnlySpan<byte> third, Span<byte> mac) =>
        Hmac(key).Compute(first, second, third, mac);

    private HmacSha256 Hmac(AeadSubKey key) => _macs[(int)key] ??= CreateHmac(key);

    private CbcCipher CreateCipher(bool encrypting)
    {
        var state = new KeyingState { Backend = _backend, Encrypting = encrypting };
        _keySource.UseSubKey(AeadSubKey.Encryption, static (scoped ReadOnlySpan<byte> key, ref KeyingState s) => s.Cipher = s.Backend.CreateCbcCipher(key, s.Encrypting), ref state);
        return state.Cipher!;
    }

    private HmacSha256 CreateHmac(AeadSubKey subKey)
    {
        var state = new KeyingState { Backend = _backend };
        _keySource.UseSubKey(subKey, static (scoped ReadOnlySpan<byte> key, ref KeyingState s) => s.Hmac = s.Backend.CreateHmac(key), ref state);
        return state.Hmac!;
    }

    private struct KeyingState
    {
        public AeadBackend Backend;
        public bool Encrypting;
        public CbcCipher? Cipher;
        public HmacSha256? Hmac;
    }
}

// Keyed BCL state for AEAD_AES_256_CBC_HMAC_SHA256 (wire-format.md §1), for platforms without OpenSSL 3
// libcrypto (Windows, macOS): reused AES-CBC transforms (see ManagedCbcCipher) and reused keyed IncrementalHash
// HMACs, each built on first use. The BCL keeps their keys in native handles (no managed key arrays); Dispose
// releases them.
using System.Diagnostics;
using System.Security.Cryptography;

namespace Encryption.Custom.Crypto.Managed;

/// <summary>An <see cref="AeadContext"/> built only from BCL primitives; allocation-free after warm-up.</summary>
internal sealed class ManagedAeadContext : AeadContext
{
    private ManagedCbcCipher? _encryptor;
    private ManagedCbcCipher? _decryptor;
    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private IncrementalHash? _mac;
    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private IncrementalHash? _ivMac;

    public ManagedAeadContext(AeadKeySource keySource)
        : base(keySource)
    {
    }

    public override void EncryptCbc(ReadOnlySpan<byte> iv, ReadOnlySpan<byte> first, ReadOnlySpan<byte> second, Span<byte> destination)
    {
        ManagedCbcCipher cipher = _encryptor ??= ManagedCbcCipher.Create(KeySource, encrypting: true);
        cipher.Reset(iv);
        cipher.Update(first, destination[..first.Length]);
        cipher.Update(second, destination.Slice(first.Length, second.Length));
    }

    public override void DecryptCbc(ReadOnlySpan<byte> iv, ReadOnlySpan<byte> cipherText, Span<byte> firstDestination, Span<byte> secondDestination)
    {
        ManagedCbcCipher cipher = _decryptor ??= ManagedCbcCipher.Create(KeySource, encrypting: false);
        cipher.Reset(iv);
        cipher.Update(cipherText[..firstDestination.Length], firstDestination);
        cipher.Update(cipherText[firstDestination.Length..], secondDestination);
    }

    protected override void ComputeMac(AeadSubKey key, ReadOnlySpan<byte> first, ReadOnlySpan<byte> second, ReadOnlySpan<byte> third, Span<byte> mac)
    {
        IncrementalHash hmac = key == AeadSubKey.Mac
            ? _mac ??= CreateHmac(KeySource, AeadSubKey.Mac)
            : _ivMac ??= CreateHmac(KeySource, AeadSubKey.Iv);
        hmac.AppendData(first);
        hmac.AppendData(second);
        hmac.AppendData(third);
        if (hmac.GetHashAndReset(mac) != AeadCellLayout.TagSize)
        {
            AeadErrors.ThrowCipherFailure();
        }
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _encryptor?.Dispose();
            _decryptor?.Dispose();
            _mac?.Dispose();
            _ivMac?.Dispose();
            _encryptor = _decryptor = null;
            _mac = _ivMac = null;
        }
    }

    private static IncrementalHash CreateHmac(AeadKeySource keySource, AeadSubKey subKey)
    {
        IncrementalHash? result = null;

        // The span overload keys the platform HMAC directly; a 32-byte key is not copied into a managed array.
        keySource.UseSubKey(subKey, static (scoped ReadOnlySpan<byte> key, ref IncrementalHash? r) => r = IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, key), ref result);
        return result!;
    }
}

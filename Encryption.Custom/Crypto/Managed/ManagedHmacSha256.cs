// HMAC-SHA256 over one reused keyed BCL IncrementalHash, for platforms without OpenSSL 3 libcrypto (Windows, macOS).
// The BCL keeps the key in a native handle (no managed key array); Dispose releases it.
using System.Diagnostics;
using System.Security.Cryptography;

namespace Encryption.Custom.Crypto.Managed;

/// <summary>A keyed HMAC-SHA256 over <see cref="IncrementalHash"/>; allocation-free after construction.</summary>
internal sealed class ManagedHmacSha256 : HmacSha256
{
    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private readonly IncrementalHash _hmac;

    // The span overload keys the platform HMAC directly; a 32-byte key is not copied into a managed array.
    public ManagedHmacSha256(ReadOnlySpan<byte> key)
    {
        if (key.Length != AeadCellLayout.KeySize)
        {
            AeadErrors.ThrowWrongKeySize(nameof(key));
        }

        _hmac = IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, key);
    }

    public override void Compute(ReadOnlySpan<byte> first, ReadOnlySpan<byte> second, ReadOnlySpan<byte> third, Span<byte> mac)
    {
        _hmac.AppendData(first);
        _hmac.AppendData(second);
        _hmac.AppendData(third);
        if (_hmac.GetHashAndReset(mac) != AeadCellLayout.TagSize)
        {
            AeadErrors.ThrowCipherFailure();
        }
    }

    public override void Dispose() => _hmac.Dispose();
}

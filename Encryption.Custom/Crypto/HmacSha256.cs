// A keyed HMAC-SHA256 (wire-format.md §1: the tag and the deterministic IV). Each backend implements it over its own
// primitive; AeadContext owns the keying and the lifetime.
namespace Encryption.Custom.Crypto;

/// <summary>A keyed HMAC-SHA256; one message at a time.</summary>
internal abstract class HmacSha256 : IDisposable
{
    /// <summary>Writes HMAC-SHA256(key, <paramref name="first"/> ‖ <paramref name="second"/> ‖ <paramref name="third"/>) to <paramref name="mac"/> (32 bytes).</summary>
    public abstract void Compute(ReadOnlySpan<byte> first, ReadOnlySpan<byte> second, ReadOnlySpan<byte> third, Span<byte> mac);

    /// <summary>Frees the keyed state (and zeroes it).</summary>
    public abstract void Dispose();
}

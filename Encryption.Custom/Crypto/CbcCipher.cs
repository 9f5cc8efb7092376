// One keyed AES-256-CBC direction (wire-format.md §1) without padding (the AEAD pads by hand), whose IV is reset per
// message. Each backend implements it over its own primitive; AeadContext owns the keying and the lifetime.
namespace Encryption.Custom.Crypto;

/// <summary>A keyed AES-256-CBC direction (encrypt or decrypt); one message at a time.</summary>
internal abstract class CbcCipher : IDisposable
{
    /// <summary>Starts a new message: keeps the key schedule, replaces the chaining value with <paramref name="iv"/>.</summary>
    public abstract void Reset(ReadOnlySpan<byte> iv);

    /// <summary>Transforms whole blocks, continuing the chain; <paramref name="output"/> is exactly as long as <paramref name="input"/>.</summary>
    public abstract void Update(ReadOnlySpan<byte> input, Span<byte> output);

    /// <summary>Frees the key schedule (native implementations cleanse it).</summary>
    public abstract void Dispose();
}

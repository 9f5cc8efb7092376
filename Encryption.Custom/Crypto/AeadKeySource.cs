// How key bytes reach the AEAD (docs/design.md, Crypto/): one 32-byte sub-key at a time, in a scoped span that the
// source wipes after the callback; the AEAD only builds keyed contexts inside the callback.
namespace Encryption.Custom.Crypto;

/// <summary>Receives one 32-byte sub-key for the duration of a call; the span is wiped as soon as it returns.</summary>
/// <remarks>
/// <paramref name="subKey"/> is <see langword="scoped"/>: the callback cannot store it (not even in a ref struct
/// <typeparamref name="TState"/>), which is what lets a source hand out a stack buffer.
/// </remarks>
internal delegate void SubKeyAction<TState>(scoped ReadOnlySpan<byte> subKey, ref TState state)
    where TState : allows ref struct;

/// <summary>
/// Where an AEAD instance gets its key bytes. Implemented over protected memory in <c>Keys/</c>; the crypto
/// layer never stores key bytes in managed memory, it only builds native keyed contexts inside the callback.
/// </summary>
internal abstract class AeadKeySource
{
    /// <summary>Unmasks <paramref name="subKey"/> into a short-lived buffer, calls <paramref name="action"/>, then wipes the buffer.</summary>
    /// <exception cref="ObjectDisposedException">The key material was released.</exception>
    public abstract void UseSubKey<TState>(AeadSubKey subKey, SubKeyAction<TState> action, ref TState state)
        where TState : allows ref struct;

    /// <summary>
    /// Whether <paramref name="subKey"/> is derived from the root key when a context first needs it rather than
    /// stored with it (the bound-cell, commitment and query-token keys): part of the contract every source implements.
    /// </summary>
    protected static bool IsDerivedOnDemand(AeadSubKey subKey) => AeadKeyDerivation.IsExtended(subKey);

    /// <summary>Derives an on-demand sub-key from the 32-byte <paramref name="rootKey"/> into <paramref name="destination"/>.</summary>
    protected static void DeriveOnDemand(ReadOnlySpan<byte> rootKey, AeadSubKey subKey, Span<byte> destination) =>
        AeadKeyDerivation.DeriveExtendedSubKey(rootKey, subKey, destination);
}

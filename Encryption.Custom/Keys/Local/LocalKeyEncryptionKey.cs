namespace Encryption.Custom.Keys.Local;

/// <summary>A key-encryption key held by the <see cref="LocalKeyWrapProvider"/>: an RSA key or an AES key.</summary>
internal abstract class LocalKeyEncryptionKey : IDisposable
{
    /// <summary>Wraps <paramref name="key"/> with <paramref name="algorithm"/>.</summary>
    /// <exception cref="ArgumentException">This kind of key does not support <paramref name="algorithm"/>, or the key length does not fit it.</exception>
    public abstract byte[] Wrap(ReadOnlySpan<byte> key, string algorithm);

    /// <summary>Unwraps into a new pinned array that the caller owns and zeroes.</summary>
    /// <returns>Null when the wrapped key does not unwrap with this key.</returns>
    /// <exception cref="ArgumentException">This kind of key does not support <paramref name="algorithm"/>.</exception>
    /// <exception cref="InvalidOperationException">The key has no private part.</exception>
    public abstract byte[]? TryUnwrap(ReadOnlySpan<byte> wrappedKey, string algorithm);

    /// <summary>Releases and zeroes the key material.</summary>
    public abstract void Dispose();

    /// <summary>A new pinned array holding <paramref name="source"/>, so the GC never moves (and copies) it.</summary>
    protected static byte[] CopyToPinned(ReadOnlySpan<byte> source)
    {
        byte[] copy = GC.AllocateUninitializedArray<byte>(source.Length, pinned: true);
        source.CopyTo(copy);
        return copy;
    }

    [System.Diagnostics.CodeAnalysis.DoesNotReturn]
    protected static void ThrowUnsupportedAlgorithm(string algorithm, string keyKind) =>
        throw new ArgumentException($"The wrap algorithm '{algorithm}' is not supported by a local {keyKind} key.", nameof(algorithm));
}

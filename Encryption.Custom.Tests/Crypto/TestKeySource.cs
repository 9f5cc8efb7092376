using Encryption.Custom.Crypto;

namespace Encryption.Custom.Tests.Crypto;

/// <summary>
/// A plain-array <see cref="AeadKeySource"/> for tests (the protected-memory one lives in Keys/). Counts how often the
/// AEAD asks for a key, and can be "released" to check how the AEAD reacts.
/// </summary>
internal sealed class TestKeySource : AeadKeySource
{
    private readonly byte[] _derivedKeys;
    private int _uses;
    private int _requestedMask;
    private volatile bool _released;

    private TestKeySource(byte[] derivedKeys)
    {
        _derivedKeys = derivedKeys;
    }

    /// <summary>How many times a sub-key was handed out.</summary>
    public int Uses => Volatile.Read(ref _uses);

    /// <summary>Whether <paramref name="subKey"/> was ever handed out.</summary>
    public bool WasRequested(AeadSubKey subKey) => (Volatile.Read(ref _requestedMask) & (1 << (int)subKey)) != 0;

    public static TestKeySource FromRootKey(ReadOnlySpan<byte> rootKey, AeadKeyLabels labels = AeadKeyLabels.Current)
    {
        byte[] derived = new byte[6 * 32];
        AeadKeyDerivation.DeriveSubKeys(rootKey, labels, derived);
        foreach (AeadSubKey extended in (AeadSubKey[])[AeadSubKey.BoundMac, AeadSubKey.Commitment, AeadSubKey.QueryToken])
        {
            AeadKeyDerivation.DeriveExtendedSubKey(rootKey, extended, derived.AsSpan((int)extended * 32, 32));
        }

        return new TestKeySource(derived);
    }

    public static TestKeySource Random(AeadKeyLabels labels = AeadKeyLabels.Current) =>
        FromRootKey(System.Security.Cryptography.RandomNumberGenerator.GetBytes(32), labels);

    /// <summary>Makes every later request fail the way released key memory does.</summary>
    public void Release() => _released = true;

    public override void UseSubKey<TState>(AeadSubKey subKey, SubKeyAction<TState> action, ref TState state)
    {
        ObjectDisposedException.ThrowIf(_released, this);
        Interlocked.Increment(ref _uses);
        Interlocked.Or(ref _requestedMask, 1 << (int)subKey);
        Span<byte> key = stackalloc byte[32];
        _derivedKeys.AsSpan((int)subKey * 32, 32).CopyTo(key);
        try
        {
            action(key, ref state);
        }
        finally
        {
            key.Clear();
        }
    }
}

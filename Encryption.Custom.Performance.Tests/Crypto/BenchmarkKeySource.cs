using Encryption.Custom.Crypto;

namespace Encryption.Custom.Performance.Tests.Crypto;

/// <summary>
/// Sub-keys from a plain array. The AEAD asks for keys only when it builds a keyed context (a pool miss), so the
/// source does not affect steady-state numbers; the protected-memory source in Keys/ is measured separately.
/// </summary>
internal sealed class BenchmarkKeySource : AeadKeySource
{
    private readonly byte[] _derivedKeys;

    public BenchmarkKeySource(ReadOnlySpan<byte> rootKey)
    {
        _derivedKeys = new byte[6 * 32];
        AeadKeyDerivation.DeriveSubKeys(rootKey, AeadKeyLabels.Current, _derivedKeys);
        foreach (AeadSubKey extended in (AeadSubKey[])[AeadSubKey.BoundMac, AeadSubKey.Commitment, AeadSubKey.QueryToken])
        {
            AeadKeyDerivation.DeriveExtendedSubKey(rootKey, extended, _derivedKeys.AsSpan((int)extended * 32, 32));
        }
    }

    /// <summary>The derived keys as arrays, for the naive baseline that keeps them that way.</summary>
    public byte[] EncryptionKey => _derivedKeys[..32];

    public byte[] MacKey => _derivedKeys[32..64];

    public override void UseSubKey<TState>(AeadSubKey subKey, SubKeyAction<TState> action, ref TState state)
    {
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

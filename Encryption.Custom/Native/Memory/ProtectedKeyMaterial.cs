using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using Encryption.Custom.Crypto;

namespace Encryption.Custom.Native.Memory;

/// <summary>
/// A DEK's 32-byte root key and its three 32-byte derived keys in protected memory (see <c>docs/key-memory.md</c>).
/// Key bytes leave it only through a callback that receives a stack copy, wiped as soon as the callback returns.
/// Thread-safe for concurrent uses; it is disposed by its one owner only when no use can still run.
/// </summary>
/// <remarks>
/// Slot layout (128 bytes, stored XOR-masked): root key, then the encryption, MAC and IV keys in
/// <see cref="AeadSubKey"/> order. The extended format's sub-keys are derived from the root key on request.
/// </remarks>
[DebuggerDisplay("{ToString(),nq}")]
internal sealed unsafe partial class ProtectedKeyMaterial : AeadKeySource
{
    /// <summary>The length of the root key and of each derived key.</summary>
    public const int KeyLength = 32;

    /// <summary>The length of the three derived keys together.</summary>
    public const int SubKeysLength = 3 * KeyLength;

    private const int RootKeyOffset = 0;
    private const int SubKeysOffset = KeyLength;
    private const int StoredLength = KeyLength + SubKeysLength;

    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private readonly ProtectedMemoryPool _pool;

    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private readonly SecretSlot _slot;

    private ProtectedKeyMaterial(ProtectedMemoryPool pool, SecretSlot slot)
    {
        _pool = pool;
        _slot = slot;
        Protection = slot.Protection;
    }

    /// <summary>What protects the key bytes (for diagnostics and tests).</summary>
    public KeyMemoryProtection Protection { get; }

    /// <summary>
    /// Copies <paramref name="rootKey"/> and <paramref name="subKeys"/> into protected memory, then wipes both spans
    /// (also when it throws).
    /// </summary>
    /// <param name="rootKey">The 32-byte root key.</param>
    /// <param name="subKeys">The 96 bytes of derived keys: encryption, MAC, IV.</param>
    /// <exception cref="ArgumentException">A span has the wrong length.</exception>
    /// <exception cref="OutOfMemoryException">No memory could be mapped.</exception>
    public static ProtectedKeyMaterial Create(Span<byte> rootKey, Span<byte> subKeys) =>
        Create(rootKey, subKeys, ProtectedMemoryPool.Shared);

    /// <inheritdoc cref="Create(Span{byte}, Span{byte})"/>
    /// <param name="rootKey">The 32-byte root key.</param>
    /// <param name="subKeys">The 96 bytes of derived keys: encryption, MAC, IV.</param>
    /// <param name="pool">Where the key lives (tests pass pools with simulated platform refusals).</param>
    internal static ProtectedKeyMaterial Create(Span<byte> rootKey, Span<byte> subKeys, ProtectedMemoryPool pool)
    {
        try
        {
            ArgumentNullException.ThrowIfNull(pool);
            if (rootKey.Length != KeyLength)
            {
                ThrowWrongLength(nameof(rootKey), KeyLength);
            }

            if (subKeys.Length != SubKeysLength)
            {
                ThrowWrongLength(nameof(subKeys), SubKeysLength);
            }

            SecretSlot slot = pool.Allocate(StoredLength);
            try
            {
                slot.Store(rootKey, RootKeyOffset);
                slot.Store(subKeys, SubKeysOffset);
                return new ProtectedKeyMaterial(pool, slot);
            }
            catch
            {
                pool.Free(slot);
                throw;
            }
        }
        finally
        {
            CryptographicOperations.ZeroMemory(rootKey);
            CryptographicOperations.ZeroMemory(subKeys);
        }
    }

    /// <inheritdoc/>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="subKey"/> is not an <see cref="AeadSubKey"/> value.</exception>
    /// <exception cref="ArgumentNullException"><paramref name="action"/> is null.</exception>
    /// <exception cref="ObjectDisposedException">The key material was released.</exception>
    public override void UseSubKey<TState>(AeadSubKey subKey, SubKeyAction<TState> action, ref TState state)
    {
        if ((uint)subKey <= (uint)AeadSubKey.Iv)
        {
            UseKey(SubKeysOffset + ((int)subKey * KeyLength), action, ref state);
        }
        else if (IsDerivedOnDemand(subKey))
        {
            UseExtendedKey(subKey, action, ref state);
        }
        else
        {
            ThrowUnknownSubKey(subKey);
        }
    }

    /// <summary>Shows the protection only, never key bytes.</summary>
    public override string ToString() =>
        IsReleased ? "ProtectedKeyMaterial (released)" : $"ProtectedKeyMaterial (protection: {Protection})";

    [SkipLocalsInit]
    private void UseKey<TState>(int offset, SubKeyAction<TState> action, ref TState state)
        where TState : allows ref struct
    {
        ArgumentNullException.ThrowIfNull(action);
        ThrowIfReleased();

        // A span over a pointer is not scope-limited, so a ref-struct state cannot trip the escape rules.
        byte* buffer = stackalloc byte[KeyLength];
        var key = new Span<byte>(buffer, KeyLength);
        try
        {
            _slot.Reveal(offset, key);
            action(key, ref state);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(key);
        }
    }

    // The extended format's keys are not stored: a context asks for one once, when it is keyed, so deriving it
    // then (one HMAC) keeps the protected slot at its format-3 size. Root and derived key live on the stack only
    // for the call and are wiped after it.
    [SkipLocalsInit]
    private void UseExtendedKey<TState>(AeadSubKey subKey, SubKeyAction<TState> action, ref TState state)
        where TState : allows ref struct
    {
        ArgumentNullException.ThrowIfNull(action);
        ThrowIfReleased();

        byte* buffer = stackalloc byte[2 * KeyLength];
        var root = new Span<byte>(buffer, KeyLength);
        var key = new Span<byte>(buffer + KeyLength, KeyLength);
        try
        {
            _slot.Reveal(RootKeyOffset, root);
            DeriveOnDemand(root, subKey, key);
            CryptographicOperations.ZeroMemory(root);
            action(key, ref state);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(new Span<byte>(buffer, 2 * KeyLength));
        }
    }

    [DoesNotReturn]
    private static void ThrowWrongLength(string parameterName, int expected) =>
        throw new ArgumentException($"The key must be exactly {expected} bytes.", parameterName);

    [DoesNotReturn]
    private static void ThrowUnknownSubKey(AeadSubKey subKey) =>
        throw new ArgumentOutOfRangeException(nameof(subKey), subKey, "Not a derived key.");
}

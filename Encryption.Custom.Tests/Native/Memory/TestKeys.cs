using System.Security.Cryptography;
using Encryption.Custom.Crypto;
using Encryption.Custom.Native.Memory;

namespace Encryption.Custom.Tests.Native.Memory;

/// <summary>Random key bytes and helpers that read key material back through its callbacks.</summary>
internal static class TestKeys
{
    public const int AllKeysLength = ProtectedKeyMaterial.KeyLength + ProtectedKeyMaterial.SubKeysLength;

    /// <summary>128 random bytes: root key, then the encryption, MAC and IV keys.</summary>
    public static byte[] RandomKeyBytes() => RandomNumberGenerator.GetBytes(AllKeysLength);

    /// <summary>Creates key material from copies of <paramref name="allKeys"/> (the copies are wiped by Create).</summary>
    public static ProtectedKeyMaterial Create(byte[] allKeys, ProtectedMemoryPool pool)
    {
        byte[] root = allKeys[..ProtectedKeyMaterial.KeyLength];
        byte[] subKeys = allKeys[ProtectedKeyMaterial.KeyLength..];
        return ProtectedKeyMaterial.Create(root, subKeys, pool);
    }

    public static byte[] ReadSubKey(ProtectedKeyMaterial material, AeadSubKey subKey)
    {
        byte[] copy = [];
        material.UseSubKey(subKey, static (ReadOnlySpan<byte> key, ref byte[] destination) => destination = key.ToArray(), ref copy);
        return copy;
    }

    /// <summary>The 96 bytes of derived keys in stored order (encryption, MAC, IV), read through the callback.</summary>
    public static byte[] ReadSubKeys(ProtectedKeyMaterial material) =>
        [.. ReadSubKey(material, AeadSubKey.Encryption), .. ReadSubKey(material, AeadSubKey.Mac), .. ReadSubKey(material, AeadSubKey.Iv)];

    /// <summary>The derived keys of <paramref name="allKeys"/> (what <see cref="ReadSubKeys"/> returns).</summary>
    public static byte[] SubKeysOf(byte[] allKeys) => allKeys[ProtectedKeyMaterial.KeyLength..];

    /// <summary>A slot's bytes as stored (masked), read in place from its slab.</summary>
    public static byte[] StoredBytes(SecretSlot slot) =>
        slot.Slab.Region.Bytes.Slice(slot.Index * slot.Slab.SlotSize, slot.Length).ToArray();
}

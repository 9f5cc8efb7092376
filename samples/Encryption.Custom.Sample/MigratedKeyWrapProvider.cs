using System.Security.Cryptography;
using Encryption.Custom;

namespace EncryptionSample;

/// <summary>
/// A key-wrap provider as an application may have written for Microsoft's package, moved over (docs/migrating.md):
/// the overrides take <see cref="ReadOnlyMemory{T}"/> where Microsoft's take <c>byte[]</c>. It wraps with AES-GCM
/// under one in-memory key named by the metadata's value; the migration sample uses it when no Key Vault key is
/// configured. Not a production design: use AzureKeyVaultKeyWrapProvider.
/// </summary>
internal sealed class MigratedKeyWrapProvider(string keyUrl, byte[] keyEncryptionKey) : EncryptionKeyWrapProvider
{
    private const int NonceSize = 12;
    private const int TagSize = 16;

    public override Task<EncryptionKeyWrapResult> WrapKeyAsync(
        ReadOnlyMemory<byte> key, Encryption.Custom.EncryptionKeyWrapMetadata metadata, CancellationToken cancellationToken = default)
    {
        CheckMetadata(metadata);
        byte[] wrapped = new byte[NonceSize + key.Length + TagSize];
        Span<byte> nonce = wrapped.AsSpan(0, NonceSize);
        RandomNumberGenerator.Fill(nonce);
        using var aes = new AesGcm(keyEncryptionKey, TagSize);
        aes.Encrypt(nonce, key.Span, wrapped.AsSpan(NonceSize, key.Length), wrapped.AsSpan(NonceSize + key.Length));
        return Task.FromResult(new EncryptionKeyWrapResult(wrapped, metadata));
    }

    public override Task<EncryptionKeyUnwrapResult> UnwrapKeyAsync(
        ReadOnlyMemory<byte> wrappedKey, Encryption.Custom.EncryptionKeyWrapMetadata metadata, CancellationToken cancellationToken = default)
    {
        CheckMetadata(metadata);
        ReadOnlySpan<byte> wrapped = wrappedKey.Span;
        byte[] key = new byte[wrapped.Length - NonceSize - TagSize];
        using var aes = new AesGcm(keyEncryptionKey, TagSize);
        aes.Decrypt(wrapped[..NonceSize], wrapped[NonceSize..^TagSize], wrapped[^TagSize..], key);
        return Task.FromResult(new EncryptionKeyUnwrapResult(key, TimeSpan.FromHours(1)));
    }

    private void CheckMetadata(Encryption.Custom.EncryptionKeyWrapMetadata metadata)
    {
        if (metadata.Type != Encryption.Custom.EncryptionKeyWrapMetadata.CustomType || metadata.Value != keyUrl)
        {
            throw new ArgumentException($"This provider wraps only with '{keyUrl}' (metadata type 'custom').", nameof(metadata));
        }
    }
}

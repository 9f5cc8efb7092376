using System.Collections.Concurrent;
using System.Security.Cryptography;

namespace Encryption.Custom.AzureKeyVault;

/// <summary>
/// Microsoft's signed envelope (<see cref="SignedEnvelopeMetadataType"/>, or <c>custom</c> as Microsoft's package
/// stores it): RSA-OAEP through <c>wrapkey</c> / <c>unwrapkey</c>, a signature through <c>sign</c>, checked
/// locally against the key's public part (<c>get</c>). Each operation pins the key version the first call
/// answered with, so a rotation between the calls cannot mix two versions.
/// </summary>
public partial class AzureKeyVaultKeyWrapProvider
{
    private const string SignatureAlgorithm = "RS256";

    // Public parts of key versions never change, so each version is read once (versionless identifiers resolve
    // to a version with one read, which is then cached under that version).
    private readonly ConcurrentDictionary<string, KeyVaultPublicKey> _publicKeys = new(StringComparer.OrdinalIgnoreCase);

    private async Task<EncryptionKeyWrapResult> WrapSignedEnvelopeAsync(
        KeyVaultKeyIdentifier keyId,
        ReadOnlyMemory<byte> key,
        EncryptionKeyWrapMetadata metadata,
        CancellationToken cancellationToken)
    {
        KeyVaultKeyOperationResult wrapped;
        using (KeyVaultKeyOperationBody body = KeyVaultKeyOperationBody.Create(KeyWrapAlgorithm.RsaOaep, key.Span))
        {
            wrapped = await SendAsync(keyId, "wrapkey", body, bufferResponse: true, cancellationToken).ConfigureAwait(false);
        }

        // From here on, only the version that wrapped: it signs, its public key verifies, and the metadata names it
        // (Microsoft's reader verifies with the key the metadata names, so a versionless name breaks at the next rotation).
        KeyVaultKeyIdentifier version = CheckAnsweringKey(keyId, wrapped.KeyId);
        byte[] signedPart = KeyVaultSignedEnvelope.BuildSignedPart(version.KeyUri.AbsoluteUri, wrapped.Value);
        KeyVaultKeyOperationResult signature;
        using (KeyVaultKeyOperationBody body = KeyVaultKeyOperationBody.Create(SignatureAlgorithm, SHA256.HashData(signedPart)))
        {
            signature = await SendAsync(version, "sign", body, bufferResponse: true, cancellationToken).ConfigureAwait(false);
        }

        CheckAnsweringKey(version, signature.KeyId);

        // Check the signature before anything is stored, as Microsoft's provider does.
        (_, KeyVaultPublicKey publicKey) = await GetPublicKeyAsync(version, cancellationToken).ConfigureAwait(false);
        if (wrapped.Value.Length != publicKey.SizeInBytes
            || !publicKey.Rsa.VerifyData(signedPart, signature.Value, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1))
        {
            throw new EncryptionException(
                EncryptionErrorKind.KeyUnavailable,
                $"Key Vault's signature over the wrapped key does not verify with the key '{version}'.");
        }

        byte[] envelope = new byte[signedPart.Length + signature.Value.Length];
        signedPart.CopyTo(envelope, 0);
        signature.Value.CopyTo(envelope, signedPart.Length);
        var stored = new EncryptionKeyWrapMetadata(metadata.Type, metadata.Name, version.KeyUri.AbsoluteUri, metadata.Algorithm);
        return new EncryptionKeyWrapResult(envelope, stored);
    }

    private async Task<byte[]> UnwrapSignedEnvelopeAsync(KeyVaultKeyIdentifier keyId, ReadOnlyMemory<byte> envelope, CancellationToken cancellationToken)
    {
        // A versionless identifier (as Microsoft's package stores what it was given) resolves to one version here,
        // and unwrapkey goes to that same version.
        (KeyVaultKeyIdentifier version, KeyVaultPublicKey publicKey) = await GetPublicKeyAsync(keyId, cancellationToken).ConfigureAwait(false);
        if (!KeyVaultSignedEnvelope.TrySplit(envelope.Span, publicKey.SizeInBytes, out Range signedPart, out Range cipherText, out Range signature, out string problem))
        {
            throw new EncryptionException(
                EncryptionErrorKind.KeyUnavailable,
                $"The wrapped key is not a valid signed envelope for the key '{version}': {problem}.");
        }

        // The signature covers the key path and the ciphertext: a swapped or altered envelope stops here.
        if (!publicKey.Rsa.VerifyData(envelope.Span[signedPart], envelope.Span[signature], HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1))
        {
            throw new EncryptionException(
                EncryptionErrorKind.KeyUnavailable,
                $"The signature of the wrapped key does not verify with the key '{version}': the envelope was altered or made with another key (or another version of it).");
        }

        return await UnwrapRawAsync(version, KeyWrapAlgorithm.RsaOaep, envelope[cipherText], cancellationToken).ConfigureAwait(false);
    }

    /// <summary>The public part of <paramref name="keyId"/> and the versioned identifier it belongs to.</summary>
    private async Task<(KeyVaultKeyIdentifier Version, KeyVaultPublicKey PublicKey)> GetPublicKeyAsync(KeyVaultKeyIdentifier keyId, CancellationToken cancellationToken)
    {
        if (keyId.Version is not null && _publicKeys.TryGetValue(keyId.KeyUri.AbsoluteUri, out KeyVaultPublicKey? cached))
        {
            return (keyId, cached);
        }

        KeyVaultPublicKey publicKey = await GetPublicKeyCoreAsync(keyId, cancellationToken).ConfigureAwait(false);
        KeyVaultKeyIdentifier version;
        try
        {
            version = CheckAnsweringKey(keyId, publicKey.KeyId);
        }
        catch
        {
            publicKey.Dispose();
            throw;
        }

        KeyVaultPublicKey kept = _publicKeys.GetOrAdd(version.KeyUri.AbsoluteUri, publicKey);
        if (!ReferenceEquals(kept, publicKey))
        {
            publicKey.Dispose();
        }

        return (version, kept);
    }
}

using System.Collections.Concurrent;
using System.Security.Cryptography;

namespace Encryption.Custom.AzureKeyVault;

/// <summary>
/// Microsoft's signed envelope (<see cref="SignedEnvelopeMetadataType"/>): RSA-OAEP through <c>wrapkey</c> /
/// <c>unwrapkey</c>, a signature through <c>sign</c>, checked locally against the key's public part (<c>get</c>).
/// </summary>
public partial class AzureKeyVaultKeyWrapProvider
{
    private const string SignatureAlgorithm = "RS256";

    // Public parts of versioned keys never change, so they are read once; versionless identifiers are read each time.
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

        CheckAnsweringKey(keyId, wrapped);
        byte[] signedPart = KeyVaultSignedEnvelope.BuildSignedPart(metadata.Value, wrapped.Value);
        KeyVaultKeyOperationResult signature;
        using (KeyVaultKeyOperationBody body = KeyVaultKeyOperationBody.Create(SignatureAlgorithm, SHA256.HashData(signedPart)))
        {
            signature = await SendAsync(keyId, "sign", body, bufferResponse: true, cancellationToken).ConfigureAwait(false);
        }

        CheckAnsweringKey(keyId, signature);

        // Check the signature before anything is stored, as Microsoft's provider does.
        KeyVaultPublicKey publicKey = await GetPublicKeyAsync(keyId, cancellationToken).ConfigureAwait(false);
        if (wrapped.Value.Length != publicKey.SizeInBytes
            || !publicKey.Rsa.VerifyData(signedPart, signature.Value, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1))
        {
            throw new EncryptionException(
                EncryptionErrorKind.KeyUnavailable,
                $"Key Vault's signature over the wrapped key does not verify with the key '{keyId}'.");
        }

        byte[] envelope = new byte[signedPart.Length + signature.Value.Length];
        signedPart.CopyTo(envelope, 0);
        signature.Value.CopyTo(envelope, signedPart.Length);
        return new EncryptionKeyWrapResult(envelope, metadata);
    }

    private async Task<byte[]> UnwrapSignedEnvelopeAsync(KeyVaultKeyIdentifier keyId, ReadOnlyMemory<byte> envelope, CancellationToken cancellationToken)
    {
        KeyVaultPublicKey publicKey = await GetPublicKeyAsync(keyId, cancellationToken).ConfigureAwait(false);
        if (!KeyVaultSignedEnvelope.TrySplit(envelope.Span, publicKey.SizeInBytes, out Range signedPart, out Range cipherText, out Range signature, out string problem))
        {
            throw new EncryptionException(
                EncryptionErrorKind.KeyUnavailable,
                $"The wrapped key is not a valid signed envelope for the key '{keyId}': {problem}.");
        }

        // The signature covers the key path and the ciphertext: a swapped or altered envelope stops here.
        if (!publicKey.Rsa.VerifyData(envelope.Span[signedPart], envelope.Span[signature], HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1))
        {
            throw new EncryptionException(
                EncryptionErrorKind.KeyUnavailable,
                $"The signature of the wrapped key does not verify with the key '{keyId}': the envelope was altered or made with another key.");
        }

        return await UnwrapRawAsync(keyId, KeyWrapAlgorithm.RsaOaep, envelope[cipherText], cancellationToken).ConfigureAwait(false);
    }

    private async Task<KeyVaultPublicKey> GetPublicKeyAsync(KeyVaultKeyIdentifier keyId, CancellationToken cancellationToken)
    {
        string cacheKey = keyId.KeyUri.AbsoluteUri;
        if (keyId.Version is not null && _publicKeys.TryGetValue(cacheKey, out KeyVaultPublicKey? cached))
        {
            return cached;
        }

        KeyVaultPublicKey publicKey = await GetPublicKeyCoreAsync(keyId, cancellationToken).ConfigureAwait(false);
        KeyVaultKeyIdentifier? answered = KeyVaultKeyIdentifier.TryParse(publicKey.KeyId);
        if (answered is null || !keyId.IsSameKey(answered))
        {
            publicKey.Dispose();
            throw new EncryptionException(EncryptionErrorKind.KeyUnavailable, $"Key Vault answered with the key '{publicKey.KeyId}' instead of '{keyId}'.");
        }

        if (keyId.Version is null)
        {
            return publicKey;
        }

        KeyVaultPublicKey kept = _publicKeys.GetOrAdd(cacheKey, publicKey);
        if (!ReferenceEquals(kept, publicKey))
        {
            publicKey.Dispose();
        }

        return kept;
    }
}

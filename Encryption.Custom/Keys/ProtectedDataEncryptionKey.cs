using System.Diagnostics;
using System.Security.Cryptography;
using Encryption.Custom.Crypto;
using Encryption.Custom.Native.Memory;

namespace Encryption.Custom.Keys;

/// <summary>
/// The library's data encryption key: root and derived keys in protected memory (<see cref="ProtectedKeyMaterial"/>),
/// one AEAD instance whose keyed native contexts are built from that memory on demand.
/// </summary>
/// <remarks>
/// Lifetime is the base class's reference count: the owner's <see cref="DataEncryptionKey.Dispose()"/> plus one per
/// lease. When the last of them lets go, the AEAD's keyed contexts are freed and the memory is wiped, in that order.
/// The public methods take a reference of their own for the call; the library's lease holders call the
/// <c>*Leased</c> methods, which take none.
/// </remarks>
[DebuggerDisplay("{ToString(),nq}")]
internal sealed class ProtectedDataEncryptionKey : DataEncryptionKey
{
    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private readonly ProtectedKeyMaterial _material;

    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private readonly AeadAes256CbcHmacSha256 _aead;

    private ProtectedDataEncryptionKey(ProtectedKeyMaterial material, string encryptionAlgorithm)
    {
        _material = material;
        _aead = new AeadAes256CbcHmacSha256(material);
        EncryptionAlgorithm = encryptionAlgorithm;
    }

    public override string EncryptionAlgorithm { get; }

    /// <summary>What protects the key bytes (for diagnostics and tests).</summary>
    internal KeyMemoryProtection Protection => _material.Protection;

    /// <summary>Copies <paramref name="rawKey"/> into protected memory with its derived keys, then wipes it.</summary>
    /// <exception cref="ArgumentException">The key is not 32 bytes or the algorithm is unknown.</exception>
    public static ProtectedDataEncryptionKey CreateProtected(Span<byte> rawKey, string encryptionAlgorithm) =>
        CreateProtected(rawKey, encryptionAlgorithm, ProtectedMemoryPool.Shared);

    /// <inheritdoc cref="CreateProtected(Span{byte}, string)"/>
    /// <param name="rawKey">The 32-byte root key; zeroed on return.</param>
    /// <param name="encryptionAlgorithm">The algorithm (see <see cref="CosmosEncryptionAlgorithm"/>).</param>
    /// <param name="pool">Where the key lives (tests pass a private pool to count what is left after dispose).</param>
    internal static ProtectedDataEncryptionKey CreateProtected(Span<byte> rawKey, string encryptionAlgorithm, ProtectedMemoryPool pool)
    {
        Span<byte> subKeys = stackalloc byte[ProtectedKeyMaterial.SubKeysLength];
        try
        {
            AeadKeyLabels labels = GetLabels(encryptionAlgorithm);
            if (rawKey.Length != ProtectedKeyMaterial.KeyLength)
            {
                throw new ArgumentException($"A data encryption key is {ProtectedKeyMaterial.KeyLength} bytes long.", nameof(rawKey));
            }

            AeadKeyDerivation.DeriveSubKeys(rawKey, labels, subKeys);

            // Create wipes both spans, also when it throws.
            return new ProtectedDataEncryptionKey(ProtectedKeyMaterial.Create(rawKey, subKeys, pool), encryptionAlgorithm);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(rawKey);
            CryptographicOperations.ZeroMemory(subKeys);
        }
    }

    public override int GetEncryptByteCount(int plainTextLength) => AeadAes256CbcHmacSha256.GetCipherTextLength(plainTextLength);

    public override int GetDecryptByteCount(int cipherTextLength) => AeadAes256CbcHmacSha256.GetMaxPlainTextLength(cipherTextLength);

    public override int EncryptData(ReadOnlySpan<byte> plainText, Span<byte> destination)
    {
        using DataEncryptionKeyLease lease = DataEncryptionKeyLease.Acquire(this);
        return EncryptLeased(plainText, destination);
    }

    public override int DecryptData(ReadOnlySpan<byte> cipherText, Span<byte> destination)
    {
        using DataEncryptionKeyLease lease = DataEncryptionKeyLease.Acquire(this);
        return DecryptLeased(cipherText, destination);
    }

    internal override int EncryptLeased(ReadOnlySpan<byte> plainText, Span<byte> destination) =>
        _aead.Encrypt(plainText, destination);

    internal override bool EncryptsBatches => Crypto.Chains.InterleavedAesCbcEncryptor.IsSupported;

    internal override void EncryptBatchLeased(ReadOnlySpan<byte> plainTexts, ReadOnlySpan<byte> ivContexts, Span<byte> output, ReadOnlySpan<Crypto.Chains.AeadBatchValue> values) =>
        _aead.EncryptBatch(plainTexts, ivContexts, output, values);

    internal override int DecryptLeased(ReadOnlySpan<byte> cipherText, Span<byte> destination) =>
        _aead.Decrypt(cipherText, destination);

    internal override bool TryDecryptLeased(ReadOnlySpan<byte> cipherText, Span<byte> destination, out int bytesWritten) =>
        _aead.TryDecrypt(cipherText, destination, out bytesWritten);

    internal override int EncryptDeterministicLeased(ReadOnlySpan<byte> ivContext, ReadOnlySpan<byte> plainText, Span<byte> destination) =>
        _aead.EncryptDeterministic(ivContext, plainText, destination);

    internal override bool HasDeterministicIvLeased(ReadOnlySpan<byte> ivContext, ReadOnlySpan<byte> plainText, ReadOnlySpan<byte> cell) =>
        _aead.HasDeterministicIv(ivContext, plainText, cell);

    internal override int EncryptBoundLeased(ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> plainText, Span<byte> destination) =>
        _aead.EncryptBound(associatedData, plainText, destination);

    internal override AeadCellCheck TryDecryptBoundLeased(ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> cipherText, Span<byte> destination, out int bytesWritten) =>
        _aead.TryDecryptBound(associatedData, cipherText, destination, out bytesWritten);

    internal override void ComputeCommitmentLeased(ReadOnlySpan<byte> documentDigest, ReadOnlySpan<byte> selectorBlock, in Crypto.Binding.CommitmentChain chain, Span<byte> destination) =>
        Crypto.Binding.DocumentCommitment.Compute(_aead, documentDigest, selectorBlock, chain, destination);

    internal override void ComputeQueryTokenLeased(ReadOnlySpan<byte> first, ReadOnlySpan<byte> second, ReadOnlySpan<byte> third, Span<byte> mac) =>
        _aead.ComputeDocumentMac(AeadSubKey.QueryToken, first, second, third, mac);

    public override string ToString() => $"DataEncryptionKey({EncryptionAlgorithm}, {_material.Protection})";

    protected override void Dispose(bool disposing)
    {
        // Called once, when the last reference is gone: no operation can still use the contexts or the memory.
        // The finalizer path is the key material's own; the AEAD's contexts finalize themselves.
        if (disposing)
        {
            _aead.Dispose();
            _material.Dispose();
        }

        base.Dispose(disposing);
    }

    private static AeadKeyLabels GetLabels(string encryptionAlgorithm) => encryptionAlgorithm switch
    {
        CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized => AeadKeyLabels.Current,
        CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized => AeadKeyLabels.Legacy,
        _ => throw new ArgumentException($"Unknown encryption algorithm '{encryptionAlgorithm}'.", nameof(encryptionAlgorithm)),
    };
}

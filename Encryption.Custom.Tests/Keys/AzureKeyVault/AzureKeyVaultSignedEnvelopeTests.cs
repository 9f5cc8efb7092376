using System.Buffers.Binary;
using System.Security.Cryptography;
using System.Text;
using Encryption.Custom.Keys;
using Encryption.Custom.AzureKeyVault;
using Encryption.Custom.Keys.Cosmos;
using Encryption.Custom.Tests.Keys.TestSupport;
using Fault = Encryption.Custom.Tests.Keys.AzureKeyVault.FakeKeyVault.Fault;

namespace Encryption.Custom.Tests.Keys.AzureKeyVault;

/// <summary>
/// The signed envelope of Microsoft's Key Vault providers (<c>AZURE_KEY_VAULT</c> / <c>RSA_OAEP</c>), so that DEKs
/// wrapped by either library unwrap with the other.
/// </summary>
public sealed class AzureKeyVaultSignedEnvelopeTests : FakeKeyVaultTestBase
{
    [Fact]
    public async Task WrapKeyAsync_SignedEnvelope_HasMicrosoftsLayout()
    {
        AzureKeyVaultKeyWrapProvider provider = CreateProvider();
        EncryptionKeyWrapMetadata metadata = AzureKeyVaultKeyWrapProvider.CreateSignedEnvelopeMetadata("myKek", KeyId);
        byte[] dek = RandomNumberGenerator.GetBytes(32);

        EncryptionKeyWrapResult wrapped = await provider.WrapKeyAsync(dek, metadata, Ct);

        byte[] envelope = wrapped.WrappedDataEncryptionKey.ToArray();
        byte[] path = Encoding.Unicode.GetBytes(KeyId.AbsoluteUri.ToLowerInvariant());
        Assert.Equal(1, envelope[0]);
        Assert.Equal(path.Length, BinaryPrimitives.ReadUInt16LittleEndian(envelope.AsSpan(1)));
        Assert.Equal(256, BinaryPrimitives.ReadUInt16LittleEndian(envelope.AsSpan(3)));
        Assert.Equal(5 + path.Length + 256 + 256, envelope.Length);
        Assert.Equal(path, envelope.AsSpan(5, path.Length).ToArray());
        Assert.Equal(dek, Rsa.Decrypt(envelope.AsSpan(5 + path.Length, 256).ToArray(), RSAEncryptionPadding.OaepSHA1));
        Assert.True(Rsa.VerifyData(envelope.AsSpan(0, 5 + path.Length + 256), envelope.AsSpan(5 + path.Length + 256), HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1));
        Assert.Equal(new EncryptionKeyWrapMetadata("AZURE_KEY_VAULT", "myKek", KeyId.AbsoluteUri, "RSA_OAEP"), wrapped.EncryptionKeyWrapMetadata);
    }

    [Fact]
    public async Task UnwrapKeyAsync_EnvelopeWrittenTheWayMicrosoftsProviderDoes_GivesTheKey()
    {
        AzureKeyVaultKeyWrapProvider provider = CreateProvider();
        byte[] dek = RandomNumberGenerator.GetBytes(32);
        byte[] envelope = BuildEnvelopeIndependently(KeyId.AbsoluteUri.ToUpperInvariant(), dek);

        using EncryptionKeyUnwrapResult unwrapped = await provider.UnwrapKeyAsync(envelope, AzureKeyVaultKeyWrapProvider.CreateSignedEnvelopeMetadata("myKek", KeyId), Ct);

        Assert.Equal(dek, unwrapped.DataEncryptionKey.ToArray());
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(3)]
    [InlineData(9)]
    [InlineData(-300)]
    [InlineData(-1)]
    public async Task UnwrapKeyAsync_AlteredEnvelope_IsRejectedBeforeUnwrapping(int offset)
    {
        AzureKeyVaultKeyWrapProvider provider = CreateProvider();
        byte[] envelope = BuildEnvelopeIndependently(KeyId.AbsoluteUri, RandomNumberGenerator.GetBytes(32));
        envelope[offset >= 0 ? offset : envelope.Length + offset] ^= 0x02;

        var error = await Assert.ThrowsAsync<EncryptionException>(() => provider.UnwrapKeyAsync(envelope, AzureKeyVaultKeyWrapProvider.CreateSignedEnvelopeMetadata("myKek", KeyId), Ct));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Equal(0, Vault.CountOperations("unwrapkey"));
    }

    [Fact]
    public async Task UnwrapKeyAsync_EnvelopeSignedByAnotherKey_IsRejected()
    {
        AzureKeyVaultKeyWrapProvider provider = CreateProvider();
        using RSA other = TestRsaKeys.Second();
        byte[] envelope = BuildEnvelopeIndependently(KeyId.AbsoluteUri, RandomNumberGenerator.GetBytes(32), signer: other);

        var error = await Assert.ThrowsAsync<EncryptionException>(() => provider.UnwrapKeyAsync(envelope, AzureKeyVaultKeyWrapProvider.CreateSignedEnvelopeMetadata("myKek", KeyId), Ct));

        Assert.Contains("signature", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task UnwrapKeyAsync_Twice_ReadsThePublicKeyOnce()
    {
        AzureKeyVaultKeyWrapProvider provider = CreateProvider();
        EncryptionKeyWrapMetadata metadata = AzureKeyVaultKeyWrapProvider.CreateSignedEnvelopeMetadata("myKek", KeyId);
        byte[] envelope = BuildEnvelopeIndependently(KeyId.AbsoluteUri, RandomNumberGenerator.GetBytes(32));

        (await provider.UnwrapKeyAsync(envelope, metadata, Ct)).Dispose();
        (await provider.UnwrapKeyAsync(envelope, metadata, Ct)).Dispose();

        Assert.Equal(1, Vault.CountOperations("get"));
        Assert.Equal(2, Vault.CountOperations("unwrapkey"));
    }

    [Fact]
    public async Task WrapKeyAsync_VaultSignatureDoesNotVerify_Throws()
    {
        AzureKeyVaultKeyWrapProvider provider = CreateProvider();
        Vault.Enqueue(Fault.WrongValue(256), "sign");

        var error = await Assert.ThrowsAsync<EncryptionException>(() => provider.WrapKeyAsync(RandomNumberGenerator.GetBytes(32), AzureKeyVaultKeyWrapProvider.CreateSignedEnvelopeMetadata("myKek", KeyId), Ct));

        Assert.Contains("does not verify", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task UnwrapKeyAsync_SignedEnvelopeWithOtherAlgorithm_ThrowsArgumentException()
    {
        AzureKeyVaultKeyWrapProvider provider = CreateProvider();

        await Assert.ThrowsAsync<ArgumentException>(() => provider.UnwrapKeyAsync(new byte[600], new EncryptionKeyWrapMetadata("AZURE_KEY_VAULT", "myKek", KeyId.AbsoluteUri, "RSA-OAEP-256"), Ct));
    }

    [Fact]
    public async Task FetchDataEncryptionKeyAsync_DekDocumentWrittenByMicrosoftsPackage_Unwraps()
    {
        byte[] dek = RandomNumberGenerator.GetBytes(32);
        byte[] envelope = BuildEnvelopeIndependently(KeyId.AbsoluteUri, dek);
        var container = new FakeContainer("keys");
        container.Seed(
            "{\"id\":\"theirs\",\"createTime\":1700000000,\"encryptionAlgorithm\":\"MdeAeadAes256CbcHmac256Randomized\"," +
            $"\"keyWrapMetadata\":{{\"type\":\"AZURE_KEY_VAULT\",\"algorithm\":\"RSA_OAEP\",\"name\":\"myKek\",\"value\":\"{KeyId.AbsoluteUri}\"}}," +
            $"\"wrappedDataEncryptionKey\":\"{Convert.ToBase64String(envelope)}\"}}");
        var keys = new TestKeyFactory();
        using var provider = new CosmosDataEncryptionKeyProvider(CreateProvider(), new CosmosDataEncryptionKeyProviderOptions(), keys);
        provider.Initialize(container);

        DataEncryptionKey key = await provider.FetchDataEncryptionKeyAsync("theirs", CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, Ct);

        Assert.Equal(dek, ((TestDataEncryptionKey)key).RawKey);
    }

    [Fact]
    public async Task CreateDataEncryptionKeyAsync_SignedEnvelopeMetadata_StoresADocumentMicrosoftsPackageCanRead()
    {
        var container = new FakeContainer("keys");
        using var provider = new CosmosDataEncryptionKeyProvider(CreateProvider(), new CosmosDataEncryptionKeyProviderOptions(), new TestKeyFactory());
        provider.Initialize(container);

        DataEncryptionKeyProperties created = (await provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync(
            "ours", CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, AzureKeyVaultKeyWrapProvider.CreateSignedEnvelopeMetadata("myKek", KeyId), cancellationToken: Ct)).Resource;

        // What Microsoft's provider checks and does: the signature over the signed part, then RSA-OAEP (SHA-1).
        byte[] envelope = created.WrappedDataEncryptionKey.ToArray();
        int pathLength = BinaryPrimitives.ReadUInt16LittleEndian(envelope.AsSpan(1));
        int signatureStart = 5 + pathLength + 256;
        Assert.True(Rsa.VerifyData(envelope.AsSpan(0, signatureStart), envelope.AsSpan(signatureStart), HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1));
        Assert.Equal(32, Rsa.Decrypt(envelope.AsSpan(5 + pathLength, 256).ToArray(), RSAEncryptionPadding.OaepSHA1).Length);
        Assert.Equal("AZURE_KEY_VAULT", created.EncryptionKeyWrapMetadata.Type);
        Assert.Equal("RSA_OAEP", created.EncryptionKeyWrapMetadata.Algorithm);
    }

    private AzureKeyVaultKeyWrapProvider CreateProvider() => AzureKeyVaultKeyWrapProviderTests.CreateProvider(Vault, Credential);

    /// <summary>The envelope built straight from the published layout, with the local copy of the KEK.</summary>
    private byte[] BuildEnvelopeIndependently(string keyPath, byte[] dek, RSA? signer = null)
    {
        byte[] path = Encoding.Unicode.GetBytes(keyPath.ToLowerInvariant());
        byte[] cipherText = Rsa.Encrypt(dek, RSAEncryptionPadding.OaepSHA1);
        var signedPart = new List<byte> { 1 };
        signedPart.AddRange(BitConverter.GetBytes((ushort)path.Length));
        signedPart.AddRange(BitConverter.GetBytes((ushort)cipherText.Length));
        signedPart.AddRange(path);
        signedPart.AddRange(cipherText);
        byte[] signature = (signer ?? Rsa).SignData(signedPart.ToArray(), HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
        return [.. signedPart, .. signature];
    }
}

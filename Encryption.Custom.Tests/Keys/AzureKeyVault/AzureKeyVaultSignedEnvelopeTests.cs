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
        EncryptionKeyWrapMetadata metadata = SignedEnvelopeMetadata("myKek", KeyId);
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

        using EncryptionKeyUnwrapResult unwrapped = await provider.UnwrapKeyAsync(envelope, SignedEnvelopeMetadata("myKek", KeyId), Ct);

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

        var error = await Assert.ThrowsAsync<EncryptionException>(() => provider.UnwrapKeyAsync(envelope, SignedEnvelopeMetadata("myKek", KeyId), Ct));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Equal(0, Vault.CountOperations("unwrapkey"));
    }

    [Fact]
    public async Task UnwrapKeyAsync_EnvelopeSignedByAnotherKey_IsRejected()
    {
        AzureKeyVaultKeyWrapProvider provider = CreateProvider();
        using RSA other = TestRsaKeys.Second();
        byte[] envelope = BuildEnvelopeIndependently(KeyId.AbsoluteUri, RandomNumberGenerator.GetBytes(32), signer: other);

        var error = await Assert.ThrowsAsync<EncryptionException>(() => provider.UnwrapKeyAsync(envelope, SignedEnvelopeMetadata("myKek", KeyId), Ct));

        Assert.Contains("signature", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task UnwrapKeyAsync_Twice_ReadsThePublicKeyOnce()
    {
        AzureKeyVaultKeyWrapProvider provider = CreateProvider();
        EncryptionKeyWrapMetadata metadata = SignedEnvelopeMetadata("myKek", KeyId);
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

        var error = await Assert.ThrowsAsync<EncryptionException>(() => provider.WrapKeyAsync(RandomNumberGenerator.GetBytes(32), SignedEnvelopeMetadata("myKek", KeyId), Ct));

        Assert.Contains("does not verify", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task UnwrapKeyAsync_SignedEnvelopeWithOtherAlgorithm_ThrowsArgumentException()
    {
        AzureKeyVaultKeyWrapProvider provider = CreateProvider();

        await Assert.ThrowsAsync<ArgumentException>(() => provider.UnwrapKeyAsync(new byte[600], new EncryptionKeyWrapMetadata("AZURE_KEY_VAULT", "myKek", KeyId.AbsoluteUri, "RSA-OAEP-256"), Ct));
    }

    private AzureKeyVaultKeyWrapProvider CreateProvider() => AzureKeyVaultKeyWrapProviderTests.CreateProvider(Vault, Credential);

    private byte[] BuildEnvelopeIndependently(string keyPath, byte[] dek, RSA? signer = null) =>
        SignedEnvelopeBuilder.Build(Rsa, keyPath, dek, signer);
}

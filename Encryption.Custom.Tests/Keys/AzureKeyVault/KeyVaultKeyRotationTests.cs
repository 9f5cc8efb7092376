using System.Security.Cryptography;
using Encryption.Custom.AzureKeyVault;
using Encryption.Custom.Tests.Keys.TestSupport;
using Fault = Encryption.Custom.Tests.Keys.AzureKeyVault.FakeKeyVault.Fault;

namespace Encryption.Custom.Tests.Keys.AzureKeyVault;

/// <summary>
/// A key rotation (a new version becoming the newest) between the calls of one operation: every call after the
/// first must use the version the first answered with, and the stored metadata must name it.
/// </summary>
public sealed class KeyVaultKeyRotationTests : FakeKeyVaultTestBase
{
    [Theory]
    [InlineData("sign")]
    [InlineData("get")]
    public async Task WrapKeyAsync_SignedEnvelopeWithRotationBeforeTheSecondCall_UsesTheVersionThatWrapped(string racedOperation)
    {
        AzureKeyVaultKeyWrapProvider provider = CreateProvider();
        Vault.Enqueue(Fault.Before(Rotate), racedOperation);
        byte[] dek = RandomNumberGenerator.GetBytes(32);

        EncryptionKeyWrapResult wrapped = await provider.WrapKeyAsync(dek, SignedEnvelopeMetadata("myKek", VersionlessKeyId), Ct);
        using EncryptionKeyUnwrapResult unwrapped = await CreateProvider().UnwrapKeyAsync(wrapped.WrappedDataEncryptionKey, wrapped.EncryptionKeyWrapMetadata, Ct);

        Assert.Equal(KeyId.AbsoluteUri, wrapped.EncryptionKeyWrapMetadata.Value);
        Assert.Equal(dek, unwrapped.DataEncryptionKey.ToArray());
        Assert.All(Vault.Requests.Where(r => r.Authorized && r.Operation != "wrapkey"), r => Assert.StartsWith(KeyId.AbsolutePath, r.Path, StringComparison.Ordinal));
    }

    [Fact]
    public async Task UnwrapKeyAsync_VersionlessEnvelopeWithRotationBeforeUnwrapkey_UnwrapsWithTheVersionThatVerified()
    {
        byte[] dek = RandomNumberGenerator.GetBytes(32);
        byte[] envelope = SignedEnvelopeBuilder.Build(Rsa, VersionlessKeyId.AbsoluteUri, dek);
        Vault.Enqueue(Fault.Before(Rotate), "unwrapkey");

        using EncryptionKeyUnwrapResult unwrapped = await CreateProvider().UnwrapKeyAsync(envelope, new EncryptionKeyWrapMetadata("myKek", VersionlessKeyId.AbsoluteUri), Ct);

        Assert.Equal(dek, unwrapped.DataEncryptionKey.ToArray());
    }

    [Fact]
    public async Task WrapAndUnwrap_ManyRacingRotations_NeverMixVersions()
    {
        // Bounded: 12 wraps and unwraps on 4 tasks while a rotation runs before every fourth key operation.
        AzureKeyVaultKeyWrapProvider provider = CreateProvider();
        int rotations = 0;
        for (int i = 0; i < 12; i++)
        {
            Vault.Enqueue(Fault.Before(() =>
            {
                if (Interlocked.Increment(ref rotations) % 4 == 0)
                {
                    Vault.AddKey("kek", rotations % 8 == 0 ? TestRsaKeys.First() : TestRsaKeys.Second());
                }
            }));
        }

        await Task.WhenAll(Enumerable.Range(0, 4).Select(async _ =>
        {
            for (int i = 0; i < 3; i++)
            {
                byte[] dek = RandomNumberGenerator.GetBytes(32);
                EncryptionKeyWrapResult wrapped = await provider.WrapKeyAsync(dek, SignedEnvelopeMetadata("myKek", VersionlessKeyId), Ct);
                using EncryptionKeyUnwrapResult unwrapped = await provider.UnwrapKeyAsync(wrapped.WrappedDataEncryptionKey, wrapped.EncryptionKeyWrapMetadata, Ct);
                Assert.Equal(dek, unwrapped.DataEncryptionKey.ToArray());
                Assert.NotNull(KeyVersion(wrapped.EncryptionKeyWrapMetadata.Value));
            }
        }));
    }

    private Uri VersionlessKeyId => new(Vault.VaultUri, "keys/kek");

    private static string? KeyVersion(string keyId)
    {
        string[] segments = new Uri(keyId).AbsolutePath.Trim('/').Split('/');
        return segments.Length == 3 ? segments[2] : null;
    }

    private void Rotate() => Vault.AddKey("kek", TestRsaKeys.Second());

    private AzureKeyVaultKeyWrapProvider CreateProvider() => AzureKeyVaultKeyWrapProviderTests.CreateProvider(Vault, Credential);
}

using Encryption.Custom.Hosting;
using Microsoft.Extensions.DependencyInjection;

namespace Encryption.Custom.Tests.Hosting;

/// <summary><c>CreateDataEncryptionKeyIfNotExists</c>'s registration: one entry per DEK, refused twice for one id, even across <c>AddCosmosEncryption</c> calls.</summary>
public sealed class DekProvisioningRegistrationTests
{
    private static readonly EncryptionKeyWrapMetadata s_kek = LocalKeyWrapProvider.CreateMetadata("kek", KeyWrapAlgorithm.AesKeyWrap);

    [Fact]
    public void CreateDataEncryptionKeyIfNotExists_RegistersEachDekWithItsKekAndAlgorithm()
    {
        var collection = new ServiceCollection();
        collection.AddCosmosEncryption(_ => { })
            .CreateDataEncryptionKeyIfNotExists("dek1", s_kek)
            .CreateDataEncryptionKeyIfNotExists("dek2", s_kek, CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized);
        using ServiceProvider services = collection.BuildServiceProvider();

        Assert.Equal(
            [new ProvisionedDataEncryptionKey("dek1", s_kek, CosmosEncryptionOptions.DefaultEncryptionAlgorithm), new ProvisionedDataEncryptionKey("dek2", s_kek, CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized)],
            services.GetServices<ProvisionedDataEncryptionKey>());
    }

    [Fact]
    public void CreateDataEncryptionKeyIfNotExists_SameIdTwice_IsRefusedEvenFromAnotherBuilder()
    {
        var collection = new ServiceCollection();
        collection.AddCosmosEncryption(_ => { }).CreateDataEncryptionKeyIfNotExists("dek1", s_kek);

        ArgumentException twice = Assert.Throws<ArgumentException>(() => collection.AddCosmosEncryption(_ => { }).CreateDataEncryptionKeyIfNotExists("dek1", LocalKeyWrapProvider.CreateMetadata("kek2", KeyWrapAlgorithm.AesKeyWrap)));

        Assert.Contains("'dek1' is already to be created at start", twice.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void CreateDataEncryptionKeyIfNotExists_BadArguments_AreRefused()
    {
        CosmosEncryptionBuilder builder = new ServiceCollection().AddCosmosEncryption(_ => { });

        Assert.Throws<ArgumentException>(() => builder.CreateDataEncryptionKeyIfNotExists("", s_kek));
        Assert.Throws<ArgumentNullException>(() => builder.CreateDataEncryptionKeyIfNotExists("dek1", null!));
        Assert.Throws<ArgumentException>(() => builder.CreateDataEncryptionKeyIfNotExists("dek1", s_kek, ""));
    }
}

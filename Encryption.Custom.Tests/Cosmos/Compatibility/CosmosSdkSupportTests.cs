using System.Xml.Linq;
using Encryption.Custom.Cosmos.Compatibility;
using Encryption.Custom.Tests.Cosmos.TestSupport;
using Encryption.Custom.Tests.TestSupport;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Compatibility;

/// <summary>An SDK the encryption types cannot load with is reported as an unsupported version, with the range.</summary>
public sealed class CosmosSdkSupportTests
{
    [Fact]
    public void Guard_TypeLoadFailure_BecomesNotSupportedNamingTheSupportedRange()
    {
        var failure = new TypeLoadException("Method 'NewAbstractMember' in type 'EncryptionContainer' does not have an implementation.");

        NotSupportedException exception = Assert.Throws<NotSupportedException>(() => CosmosSdkSupport.Guard<Container>(() => throw failure));

        Assert.Contains($"Microsoft.Azure.Cosmos {CosmosSdkSupport.Floor} to {CosmosSdkSupport.NewestTested}", exception.Message, StringComparison.Ordinal);
        Assert.Contains($"version {CosmosSdkSupport.LoadedVersion} is loaded", exception.Message, StringComparison.Ordinal);
        Assert.Same(failure, exception.InnerException);
    }

    [Fact]
    public void Guard_OtherFailures_PassThroughUnchanged()
    {
        var failure = new InvalidOperationException("not a type load");

        Assert.Same(failure, Assert.Throws<InvalidOperationException>(() => CosmosSdkSupport.Guard<Container>(() => throw failure)));
    }

    [Fact]
    public void SupportedRange_IsTheOneDirectoryPackagesPropsDeclares()
    {
        XElement properties = XDocument.Load(RepositoryFiles.Path("Directory.Packages.props")).Root!;
        string Property(string name) => properties.Descendants(name).Single().Value;
        string[] versions = Property("CosmosSdkVersions").Split(';');

        Assert.Equal(Property("CosmosSdkFloor"), CosmosSdkSupport.Floor);
        Assert.Equal(Property("CosmosSdkNewestTested"), CosmosSdkSupport.NewestTested);
        Assert.Equal(CosmosSdkSupport.Floor, versions[0]);
        Assert.Equal(CosmosSdkSupport.NewestTested, versions[^1]);
    }

    [Fact]
    public void LoadedVersion_IsTheSdkInThisProcess() =>
        Assert.Matches(@"^3\.\d+\.\d+", CosmosSdkSupport.LoadedVersion);

    [Fact]
    public void WithEncryptor_OnASupportedSdk_LoadsEveryEncryptionType()
    {
        using var setup = new EncryptionSetup();

        Assert.NotNull(setup.Inner.WithEncryptor(setup.Encryptor));
    }
}

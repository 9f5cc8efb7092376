using Encryption.Custom.Tool.CommandLine;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.Tests.CommandLine;

/// <summary>create-dek, list-deks and rewrap-dek: their options, defaults and every usage error (exit code 2).</summary>
public sealed class DekCommandLineTests
{
    private const string VaultKey = "https://contoso.vault.azure.net/keys/kek1";

    private static readonly string[] s_container = ["--endpoint", "https://127.0.0.1:8081/", "--database", "db", "--dek-container", "keys"];

    [Fact]
    public void Parse_CreateDekWithKekFile_BuildsLocalMetadataAndDefaultsTheAlgorithm()
    {
        DekArguments deks = CommandLineParser.Parse(
            ["create-dek", .. s_container, "--dek-id", "dek1", "--kek-file", "kek.jwk", "--kek-name", "kek1", "--wrap-algorithm", "AES-KW"]).Deks!;

        Assert.Equal((new Uri("https://127.0.0.1:8081/"), "db", "keys", "dek1", "kek.jwk"), (deks.Endpoint, deks.Database, deks.Container, deks.DekId, deks.KekFile));
        Assert.Equal(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, deks.Algorithm);
        Assert.Equal(LocalKeyWrapProvider.CreateMetadata("kek1", KeyWrapAlgorithm.AesKeyWrap), deks.WrapMetadata);
        Assert.Null(deks.NewKekFile);
    }

    [Fact]
    public void Parse_CreateDekWithKeyVault_DefaultsToRsaOaep256()
    {
        DekArguments deks = CommandLineParser.Parse(
            ["create-dek", .. s_container, "--dek-id", "dek1", "--key-vault-credential", "default", "--kek-name", VaultKey, "--algorithm", CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized]).Deks!;

        Assert.Null(deks.KekFile);
        Assert.Equal(AzureKeyVault.AzureKeyVaultKeyWrapProvider.CreateMetadata(new Uri(VaultKey)), deks.WrapMetadata);
        Assert.Equal(KeyWrapAlgorithm.RsaOaep256, deks.WrapMetadata!.Algorithm);
        Assert.Equal(CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized, deks.Algorithm);
    }

    [Fact]
    public void Parse_RewrapDekWithNewKekFile_ReadsBothFiles()
    {
        DekArguments deks = CommandLineParser.Parse(
            ["rewrap-dek", .. s_container, "--dek-id", "dek1", "--kek-file", "old.jwk", "--new-kek-file", "new.pem", "--kek-name", "kek2", "--wrap-algorithm", "RSA-OAEP-256"]).Deks!;

        Assert.Equal(("old.jwk", "new.pem"), (deks.KekFile, deks.NewKekFile));
        Assert.Equal(LocalKeyWrapProvider.CreateMetadata("kek2", KeyWrapAlgorithm.RsaOaep256), deks.WrapMetadata);
    }

    [Fact]
    public void Parse_ListDeks_NeedsNoKey()
    {
        ToolArguments arguments = CommandLineParser.Parse(["list-deks", .. s_container]);

        Assert.Equal(CommandKind.ListDeks, arguments.Command!.Kind);
        Assert.Equal(("db", "keys", null, null), (arguments.Deks!.Database, arguments.Deks.Container, arguments.Deks.DekId, arguments.Deks.WrapMetadata));
    }

    public static TheoryData<string[], string> UsageErrors => new()
    {
        { ["create-dek", .. s_container, "--kek-file", "k", "--kek-name", "n", "--wrap-algorithm", "AES-KW"], "'create-dek' needs the option --dek-id ID" },
        { ["create-dek", .. s_container, "--dek-id", "d", "--kek-file", "k", "--wrap-algorithm", "AES-KW"], "'create-dek' needs the option --kek-name NAME|URI" },
        { ["create-dek", "--endpoint", "https://a/", "--database", "db", "--dek-id", "d", "--kek-file", "k", "--kek-name", "n"], "'create-dek' needs the option --dek-container NAME" },
        { ["create-dek", .. s_container, "--dek-id", "d", "--kek-name", "n", "--wrap-algorithm", "AES-KW"], "exactly one key-encryption key: --kek-file PATH or --key-vault-credential default" },
        { ["create-dek", .. s_container, "--dek-id", "d", "--kek-file", "k", "--key-vault-credential", "default", "--kek-name", "n"], "exactly one key-encryption key" },
        { ["create-dek", .. s_container, "--dek-id", "d", "--kek-file", "k", "--kek-name", "n"], "--kek-file needs --wrap-algorithm ALGORITHM" },
        { ["create-dek", .. s_container, "--dek-id", "d", "--kek-file", "k", "--kek-name", "n", "--wrap-algorithm", "AES-KV"], "unknown wrap algorithm (not printed) for --wrap-algorithm" },
        { ["create-dek", .. s_container, "--dek-id", "d", "--kek-file", "k", "--kek-name", " ", "--wrap-algorithm", "AES-KW"], "--kek-name needs a non-empty name" },
        { ["create-dek", .. s_container, "--dek-id", "d", "--kek-file", "k", "--kek-name", "n", "--wrap-algorithm", "AES-KW", "--algorithm", "AES"], "unknown DEK algorithm 'AES'" },
        { ["create-dek", .. s_container, "--dek-id", "d", "--key-vault-credential", "default", "--kek-name", "kek1"], "--kek-name needs the Key Vault key identifier" },
        { ["create-dek", .. s_container, "--dek-id", "d", "--key-vault-credential", "default", "--kek-name", "https://u:p@contoso.vault.azure.net/keys/k"], "--kek-name needs a Key Vault key identifier" },
        { ["create-dek", .. s_container, "--dek-id", "d", "--key-vault-credential", "default", "--kek-name", VaultKey, "--wrap-algorithm", "AES-KW"], "--wrap-algorithm RSA-OAEP-256 (default) or RSA-OAEP" },
        { ["create-dek", .. s_container, "--dek-id", "d", "--kek-file", "k", "--kek-name", "n", "--wrap-algorithm", "AES-KW", "--new-kek-file", "x"], "unknown option '--new-kek-file' for 'create-dek'" },
        { ["create-dek", "--endpoint", "http://a/", "--database", "db", "--dek-container", "keys", "--dek-id", "d", "--kek-file", "k", "--kek-name", "n", "--wrap-algorithm", "AES-KW"], "--endpoint needs an absolute https URI" },
        { ["rewrap-dek", .. s_container, "--dek-id", "d", "--key-vault-credential", "default", "--new-kek-file", "x", "--kek-name", VaultKey], "--new-kek-file goes with --kek-file" },
        { ["rewrap-dek", .. s_container, "--dek-id", "d", "--kek-file", "k", "--kek-name", "n", "--wrap-algorithm", "AES-KW", "--algorithm", "x"], "unknown option '--algorithm' for 'rewrap-dek'" },
        { ["list-deks", .. s_container, "--kek-file", "k"], "unknown option '--kek-file' for 'list-deks'" },
        { ["list-deks", "--endpoint", "https://a/", "--dek-container", "keys"], "'list-deks' needs the option --database NAME" },
    };

    [Theory]
    [MemberData(nameof(UsageErrors))]
    public void Parse_UsageError_ThrowsWithExitCodeTwoAndNamesTheProblem(string[] args, string expected)
    {
        ToolException exception = Assert.Throws<ToolException>(() => CommandLineParser.Parse(args));

        Assert.Equal(ExitCodes.UsageError, exception.ExitCode);
        Assert.Equal(ToolException.UsageErrorKind, exception.Kind);
        Assert.Contains(expected, exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Parse_KeyVaultIdentifierWithUserInfo_IsNotEchoed()
    {
        ToolException exception = Assert.Throws<ToolException>(() => CommandLineParser.Parse(
            ["create-dek", .. s_container, "--dek-id", "d", "--key-vault-credential", "default", "--kek-name", "https://user:s3cr3t@contoso.vault.azure.net/keys/k"]));

        Assert.DoesNotContain("s3cr3t", exception.Message, StringComparison.Ordinal);
    }
}

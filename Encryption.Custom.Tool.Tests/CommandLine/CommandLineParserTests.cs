using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Tool.CommandLine;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.Tests.CommandLine;

public sealed class CommandLineParserTests
{
    [Fact]
    public void Parse_EncryptWithEveryOption_ReadsEachValue()
    {
        ToolArguments arguments = CommandLineParser.Parse(
            ["encrypt", "--key-file", "k.hex", "--dek-id=dek 1", "--path", "/a", "--path=/b", "--processor", "Newtonsoft", "--in", "in.json", "--out", "out.json"]);

        Assert.Equal(ToolAction.Run, arguments.Action);
        Assert.Equal(CommandKind.Encrypt, arguments.Command!.Kind);
        Assert.Equal("k.hex", arguments.KeyFile);
        Assert.Equal("dek 1", arguments.DataEncryptionKeyId);
        Assert.Equal(["/a", "/b"], arguments.Paths);
        Assert.Equal(JsonProcessor.Newtonsoft, arguments.Processor);
        Assert.Equal("in.json", arguments.InputPath);
        Assert.Equal("out.json", arguments.OutputPath);
    }

    [Fact]
    public void Parse_DecryptWithoutOptionalOptions_DefaultsToStreamProcessorAndStandardStreams()
    {
        ToolArguments arguments = CommandLineParser.Parse(["decrypt", "--key-file", "k.hex"]);

        Assert.Equal(CommandKind.Decrypt, arguments.Command!.Kind);
        Assert.Equal(JsonProcessor.Stream, arguments.Processor);
        Assert.Null(arguments.InputPath);
        Assert.Null(arguments.OutputPath);
    }

    [Fact]
    public void Parse_ValueAfterEqualsSign_MayStartWithDashes()
    {
        ToolArguments arguments = CommandLineParser.Parse(["inspect", "--in=--odd-name.json"]);

        Assert.Equal("--odd-name.json", arguments.InputPath);
    }

    [Theory]
    [InlineData("--help")]
    [InlineData("-h")]
    [InlineData("-?")]
    public void Parse_HelpAlone_ShowsToolHelp(string token)
    {
        ToolArguments arguments = CommandLineParser.Parse([token]);

        Assert.Equal(ToolAction.ShowHelp, arguments.Action);
        Assert.Null(arguments.Command);
    }

    [Fact]
    public void Parse_HelpAmongInvalidCommandOptions_ShowsCommandHelp()
    {
        ToolArguments arguments = CommandLineParser.Parse(["encrypt", "--bogus", "--help"]);

        Assert.Equal(ToolAction.ShowHelp, arguments.Action);
        Assert.Equal(CommandKind.Encrypt, arguments.Command!.Kind);
    }

    [Fact]
    public void Parse_Version_ShowsVersion()
    {
        Assert.Equal(ToolAction.ShowVersion, CommandLineParser.Parse(["--version"]).Action);
    }

    [Fact]
    public void Parse_DecryptWithDekFileAndKekFile_GivesTheWrappedKeySource()
    {
        ToolArguments arguments = CommandLineParser.Parse(["decrypt", "--dek-file", "dek.json", "--kek-file", "kek.pem"]);

        Assert.Null(arguments.KeyFile);
        Assert.Equal("dek.json", arguments.WrappedKey!.DekFile);
        Assert.Equal("kek.pem", arguments.WrappedKey.KekFile);
        Assert.Null(arguments.WrappedKey.Endpoint);
    }

    [Fact]
    public void Parse_DecryptWithDekEndpointAndKeyVault_GivesTheWrappedKeySource()
    {
        ToolArguments arguments = CommandLineParser.Parse(
            ["decrypt", "--dek-endpoint", "https://127.0.0.1:8081/", "--dek-database", "db", "--dek-container", "keys", "--key-vault-credential", "default"]);

        Assert.Equal(new Uri("https://127.0.0.1:8081/"), arguments.WrappedKey!.Endpoint);
        Assert.Equal(("db", "keys"), (arguments.WrappedKey.Database, arguments.WrappedKey.Container));
        Assert.Null(arguments.WrappedKey.KekFile);
    }

    [Fact]
    public void Parse_DecryptWithKeyFile_HasNoWrappedKeySource() =>
        Assert.Null(CommandLineParser.Parse(["decrypt", "--key-file", "k.hex"]).WrappedKey);

    private static readonly string[] s_migrate =
        ["migrate", "--endpoint", "https://127.0.0.1:8081/", "--database", "db", "--container", "c", "--lease-container", "l", "--dek-container", "keys"];

    [Fact]
    public void Parse_MigrateWithEveryOption_ReadsEachValue()
    {
        ToolArguments arguments = CommandLineParser.Parse(
            [.. s_migrate, "--dek-database", "kdb", "--kek-file", "kek.jwk", "--dek-id", "dek2", "--path", "/a", "--path=/b", "--accept-dek", "dek1",
             "--accept-dek", "dek0", "--budget", "250.5", "--parallelism", "3", "--batch-size", "50", "--bulk", "--job-name", "rotate", "--processor", "newtonsoft"]);

        MigrationArguments migration = arguments.Migration!;
        Assert.Equal(CommandKind.Migrate, arguments.Command!.Kind);
        Assert.Equal(new Uri("https://127.0.0.1:8081/"), migration.Endpoint);
        Assert.Equal(("db", "c", "l", "kdb", "keys", "kek.jwk"), (migration.Database, migration.Container, migration.LeaseContainer, migration.DekDatabase, migration.DekContainer, migration.KekFile));
        Assert.Equal("dek2", migration.TargetDekId);
        Assert.Equal(["/a", "/b"], migration.TargetPaths);
        Assert.Equal(["dek1", "dek0"], migration.AcceptedDekIds);
        Assert.Equal((250.5, 3, 50, true, "rotate", JsonProcessor.Newtonsoft), (migration.RequestUnitsPerSecond, migration.Parallelism, migration.BatchSize, migration.Bulk, migration.JobName, migration.Processor));
        Assert.Null(migration.LeaseExpiration);
    }

    [Theory]
    [InlineData("1", 1_000)]
    [InlineData("7.5", 7_500)]
    [InlineData("86400", 86_400_000)]
    public void Parse_MigrateLeaseExpiration_ReadsSeconds(string seconds, long milliseconds) =>
        Assert.Equal(
            TimeSpan.FromMilliseconds(milliseconds),
            CommandLineParser.Parse([.. s_migrate, "--decrypt", "--kek-file", "k", "--lease-expiration", seconds]).Migration!.LeaseExpiration);

    [Fact]
    public void Parse_MigrateWithTargetContainer_ReadsIt_AndInPlaceHasNone()
    {
        Assert.Equal("c2", CommandLineParser.Parse([.. s_migrate, "--kek-file", "k", "--dek-id", "d", "--path", "/a", "--target-container", "c2"]).Migration!.TargetContainer);
        Assert.Null(CommandLineParser.Parse([.. s_migrate, "--kek-file", "k", "--dek-id", "d", "--path", "/a"]).Migration!.TargetContainer);
    }

    [Fact]
    public void Parse_MigrateWithPermissionsAndDryRun_ReadsEachValue()
    {
        MigrationArguments migration = CommandLineParser.Parse(
            [.. s_migrate, "--kek-file", "k", "--dek-id", "dek2", "--path", "/a", "--deterministic-path", "/d", "--decrypt-path", "/b", "--decrypt-path", "/c",
             "--change-type-path", "/a", "--dry-run", "--failures-file", "failures.txt"]).Migration!;

        Assert.Equal(["/a", "/d"], migration.TargetPaths);
        Assert.Equal(["/d"], migration.DeterministicPaths);
        Assert.Equal(["/b", "/c"], migration.DecryptPaths);
        Assert.Equal(["/a"], migration.ChangeTypePaths);
        Assert.Equal((true, "failures.txt"), (migration.DryRun, migration.FailuresFile));
    }

    [Fact]
    public void Parse_MigrateDecryptWithKeyVault_HasNoTargetAndDefaults()
    {
        MigrationArguments migration = CommandLineParser.Parse([.. s_migrate, "--decrypt", "--key-vault-credential", "default"]).Migration!;

        Assert.Null(migration.TargetDekId);
        Assert.Null(migration.KekFile);
        Assert.Equal((null, null, null, false, null), (migration.RequestUnitsPerSecond, migration.Parallelism, migration.BatchSize, migration.Bulk, migration.JobName));
    }

    [Fact]
    public void Parse_StatusWithoutTarget_CountsAgainstNoEncryption()
    {
        MigrationArguments migration = CommandLineParser.Parse(["status", "--endpoint", "https://a/", "--database", "b", "--container", "c"]).Migration!;

        Assert.Equal(("b", "c", null), (migration.Database, migration.Container, migration.TargetDekId));
    }

    [Fact]
    public void Parse_StatusWithTargetContainer_CarriesTheCopyTargetAndKeys()
    {
        MigrationArguments migration = CommandLineParser.Parse(
            ["status", "--endpoint", "https://a/", "--database", "b", "--container", "c", "--target-container", "t", "--dek-container", "k",
             "--kek-file", "kek.json", "--dek-id", "d", "--deterministic-path", "/id", "--path", "/ssn", "--accept-dek", "old"]).Migration!;

        Assert.Equal(("c", "t", "k", "kek.json", "d"), (migration.Container, migration.TargetContainer, migration.DekContainer, migration.KekFile, migration.TargetDekId));
        Assert.Equal(["/ssn", "/id"], migration.TargetPaths);
        Assert.Equal(["/id"], migration.DeterministicPaths);
        Assert.Equal(["old"], migration.AcceptedDekIds);
    }

    [Fact]
    public void Parse_StatusCopyToNoEncryptionWithKeyVault_HasNoTargetPolicy()
    {
        MigrationArguments migration = CommandLineParser.Parse(
            ["status", "--endpoint", "https://a/", "--database", "b", "--container", "c", "--target-container", "t", "--dek-container", "k", "--key-vault-credential", "default"]).Migration!;

        Assert.Equal(("t", null, null), (migration.TargetContainer, migration.TargetDekId, migration.KekFile));
    }

    public static TheoryData<string[], string> UsageErrors => new()
    {
        { [], "no command given" },
        { ["encrpyt"], "unknown command 'encrpyt'" },
        { ["--frobnicate"], "unknown option '--frobnicate'" },
        { ["--version", "extra"], "'--version' takes no arguments" },
        { ["encrypt", "--dek-id", "d", "--path", "/a"], "needs the option --key-file" },
        { ["encrypt", "--key-file", "k", "--path", "/a"], "needs the option --dek-id" },
        { ["encrypt", "--key-file", "k", "--dek-id", "d"], "needs the option --path" },
        { ["decrypt"], "'decrypt' needs a key: --key-file PATH, or --dek-file PATH or --dek-endpoint URI" },
        { ["decrypt", "--key-file", "k", "--dek-file", "d"], "--key-file is a raw key: it cannot be combined" },
        { ["decrypt", "--key-file", "k", "--kek-file", "e"], "--key-file is a raw key: it cannot be combined" },
        { ["decrypt", "--dek-file", "d"], "exactly one key-encryption key: --kek-file PATH or --key-vault-credential default" },
        { ["decrypt", "--dek-file", "d", "--kek-file", "e", "--key-vault-credential", "default"], "exactly one key-encryption key" },
        { ["decrypt", "--dek-file", "d", "--dek-endpoint", "https://a/", "--dek-database", "b", "--dek-container", "c", "--kek-file", "e"], "either as --dek-file or through --dek-endpoint" },
        { ["decrypt", "--dek-endpoint", "https://a/", "--dek-container", "c", "--kek-file", "e"], "--dek-endpoint needs --dek-database NAME and --dek-container NAME" },
        { ["decrypt", "--dek-endpoint", "http://a/", "--dek-database", "b", "--dek-container", "c", "--kek-file", "e"], "--dek-endpoint needs an absolute https URI" },
        { ["decrypt", "--dek-file", "d", "--dek-database", "b", "--kek-file", "e"], "--dek-database and --dek-container go with --dek-endpoint" },
        { ["decrypt", "--dek-file", "d", "--key-vault-credential", "cli"], "unknown credential 'cli' for --key-vault-credential" },
        { ["decrypt", "--key-file", "k", "--dek-id", "d"], "unknown option '--dek-id' for 'decrypt'" },
        { ["inspect", "--key-file", "k"], "unknown option '--key-file' for 'inspect'" },
        { ["inspect", "--out", "x"], "unknown option '--out' for 'inspect'" },
        { ["decrypt", "--key-file"], "option --key-file needs a value" },
        { ["decrypt", "--key-file", "--in", "x"], "option --key-file needs a value" },
        { ["decrypt", "--key-file="], "option --key-file needs a value" },
        { ["decrypt", "--key-file", "a", "--key-file", "b"], "option --key-file is given more than once" },
        { ["decrypt", "--key-file", "k", "--processor", "fast"], "unknown processor 'fast'" },
        { ["decrypt", "--key-file", "k", "-x"], "unknown option '-x' for 'decrypt'" },
        { ["decrypt", "--key-file", "k", "--"], "unknown option '--' for 'decrypt'" },
        { ["decrypt", "--key-file", "k", "in.json"], "unexpected argument at position 4" },

        // migrate and status.
        { [.. s_migrate, "--kek-file", "k"], "'migrate' needs a target: --dek-id ID with --path /NAME, or --decrypt" },
        { [.. s_migrate, "--kek-file", "k", "--decrypt", "--dek-id", "d", "--path", "/a"], "'migrate' needs a target" },
        { [.. s_migrate, "--kek-file", "k", "--path", "/a", "--decrypt"], "--path goes with --dek-id" },
        { [.. s_migrate, "--kek-file", "k", "--dek-id", "d"], "--dek-id needs at least one --path /NAME" },
        { [.. s_migrate, "--decrypt"], "exactly one key-encryption key" },
        { [.. s_migrate, "--decrypt", "--kek-file", "k", "--budget", "0"], "option --budget needs a positive number (RU/S)" },
        { [.. s_migrate, "--decrypt", "--kek-file", "k", "--budget", "NaN"], "option --budget needs a positive number" },
        { [.. s_migrate, "--decrypt", "--kek-file", "k", "--parallelism", "1.5"], "option --parallelism needs a positive number (N)" },
        { [.. s_migrate, "--decrypt", "--kek-file", "k", "--lease-expiration", "0"], "option --lease-expiration needs a positive number (SECONDS)" },
        { [.. s_migrate, "--decrypt", "--kek-file", "k", "--lease-expiration", "0.5"], "option --lease-expiration needs a number of seconds from 1 to 86400" },
        { [.. s_migrate, "--decrypt", "--kek-file", "k", "--lease-expiration", "86401"], "option --lease-expiration needs a number of seconds from 1 to 86400" },
        { [.. s_migrate, "--decrypt", "--kek-file", "k", "--bulk", "yes"], "unexpected argument at position 16" },
        { [.. s_migrate, "--decrypt", "--kek-file", "k", "--decrypt"], "option --decrypt is given more than once" },
        { [.. s_migrate, "--decrypt", "--kek-file", "k", "--path", "/a"], "--path goes with --dek-id" },
        { [.. s_migrate, "--decrypt", "--kek-file", "k", "--deterministic-path", "/a"], "--path goes with --dek-id" },
        { [.. s_migrate, "--kek-file", "k", "--dek-id", "d", "--path", "/a", "--decrypt-path", "/a"], "--decrypt-path /a names a path the target encrypts" },
        { [.. s_migrate, "--kek-file", "k", "--dek-id", "d", "--path", "/a", "--target-container", "c"], "--target-container names the --container itself" },
        { [.. s_migrate, "--kek-file", "k", "--dek-id", "d", "--deterministic-path", "/a", "--decrypt-path", "/a"], "--decrypt-path /a names a path the target encrypts" },
        { [.. s_migrate, "--decrypt", "--kek-file", "k", "--dry-run", "--dry-run"], "option --dry-run is given more than once" },
        { [.. s_migrate, "--decrypt", "--kek-file", "k", "--failures-file"], "option --failures-file needs a value" },
        { ["status", "--endpoint", "https://a/", "--database", "b", "--container", "c", "--decrypt-path", "/a"], "unknown option '--decrypt-path' for 'status'" },
        { ["migrate", "--endpoint", "https://a/", "--database", "b", "--container", "c", "--dek-container", "k", "--decrypt", "--kek-file", "k"], "needs the option --lease-container" },
        { ["status", "--endpoint", "http://a/", "--database", "b", "--container", "c"], "--endpoint needs an absolute https URI" },
        { ["status", "--endpoint", "https://a/", "--database", "b"], "'status' needs the option --container NAME" },
        { ["status", "--endpoint", "https://a/", "--database", "b", "--container", "c", "--kek-file", "k"], "--kek-file goes with --target-container" },
        { ["status", "--endpoint", "https://a/", "--database", "b", "--container", "c", "--dek-container", "k"], "--dek-container goes with --target-container" },
        { ["status", "--endpoint", "https://a/", "--database", "b", "--container", "c", "--accept-dek", "d"], "--accept-dek goes with --target-container" },
        { ["status", "--endpoint", "https://a/", "--database", "b", "--container", "c", "--target-container", "t", "--kek-file", "k"], "--target-container needs --dek-container NAME" },
        { ["status", "--endpoint", "https://a/", "--database", "b", "--container", "c", "--target-container", "t", "--dek-container", "k"], "exactly one key-encryption key" },
        { ["status", "--endpoint", "https://a/", "--database", "b", "--container", "c", "--target-container", "c", "--dek-container", "k", "--kek-file", "k"], "--target-container names the --container itself" },
        { ["status", "--endpoint", "https://a/", "--database", "b", "--container", "c", "--target-container", "t", "--dek-container", "k", "--kek-file", "k", "--deterministic-path", "/id"], "--path goes with --dek-id" },
        { ["status", "--endpoint", "https://a/", "--database", "b", "--container", "c", "--target-container", "t", "--dek-container", "k", "--kek-file", "k", "--lease-container", "l"], "unknown option '--lease-container' for 'status'" },

        // What System.CommandLine would otherwise accept or word differently.
        { ["encrypt", "--key-file=k", "--dek-id", "d", "--path=/a", "stray"], "unexpected argument at position 6" },
        { ["encrypt", "--key-file", "k", "--dek-id", "d", "--path", "/a", "/b"], "unexpected argument at position 8" },
        { ["decrypt", "--key-file", "k", "--in", "--odd.json"], "option --in needs a value" },
        { ["decrypt", "--key-file", "k", "@arguments.rsp"], "unexpected argument at position 4" },
        { ["decrypt", "--verbose=1", "--key-file", "k"], "unknown option '--verbose' for 'decrypt'" },
        { ["[suggest]", "decrypt", "--key-file", "k"], "unexpected argument at position 1" },
        { ["/h"], "unknown command '(not printed)'" },
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

    [Theory]
    [InlineData("0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20")]
    [InlineData("s3cr3t")]
    public void Parse_StrayArgument_IsNotEchoed(string stray)
    {
        // Somebody who pastes a key where a file name belongs must not find it in a log.
        ToolException positional = Assert.Throws<ToolException>(() => CommandLineParser.Parse(["decrypt", "--key-file", "k", stray]));
        ToolException command = Assert.Throws<ToolException>(() => CommandLineParser.Parse([stray]));
        ToolException processor = Assert.Throws<ToolException>(() => CommandLineParser.Parse(["decrypt", "--key-file", "k", "--processor", stray]));

        Assert.DoesNotContain(stray, positional.Message, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain(stray, command.Message, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain(stray, processor.Message, StringComparison.OrdinalIgnoreCase);
    }
}

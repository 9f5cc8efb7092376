using Encryption.Custom.Tool.Errors;
using Encryption.Custom.Tool.KeyFiles;
using Encryption.Custom.Tool.Tests.TestSupport;

namespace Encryption.Custom.Tool.Tests.KeyFiles;

public sealed class KeyFileReaderTests : IDisposable
{
    private readonly TempFolder _folder = new();
    private readonly TestKey _key = TestKey.Random();

    public void Dispose() => _folder.Dispose();

    [Theory]
    [InlineData("{0}")]
    [InlineData("{0}\n")]
    [InlineData("{0}\r\n")]
    [InlineData("  \t{0}  \n\n")]
    [InlineData("\n{0}")]
    public void Read_KeyWithSurroundingWhitespace_ReturnsTheKey(string layout)
    {
        string path = _folder.Write("k.hex", string.Format(System.Globalization.CultureInfo.InvariantCulture, layout, _key.Hex));
        byte[] read = new byte[32];

        KeyFileReader.Read(path, read);

        Assert.Equal(_key.Hex, Convert.ToHexStringLower(read));
    }

    [Fact]
    public void Read_UpperCaseKey_ReturnsTheKey()
    {
        string path = _folder.Write("k.hex", _key.Hex.ToUpperInvariant());
        byte[] read = new byte[32];

        KeyFileReader.Read(path, read);

        Assert.Equal(_key.Hex, Convert.ToHexStringLower(read));
    }

    public static TheoryData<string> InvalidContents => new()
    {
        string.Empty,
        "\n",
        new string('a', 62),
        new string('a', 66),
        new string('a', 63) + "g",
        new string('a', 32) + " " + new string('a', 32),
        "\"" + new string('a', 64) + "\"",
        "0x" + new string('a', 64),
    };

    [Theory]
    [MemberData(nameof(InvalidContents))]
    public void Read_NotExactlyOneKey_FailsWithBadInputAndWipesTheBuffer(string content)
    {
        string path = _folder.Write("k.hex", content);
        byte[] read = new byte[32];

        ToolException exception = Assert.Throws<ToolException>(() => KeyFileReader.Read(path, read));

        Assert.Equal(ExitCodes.BadInput, exception.ExitCode);
        Assert.Equal(ToolException.InvalidKeyFileKind, exception.Kind);
        Assert.All(read, b => Assert.Equal(0, b));
    }

    [Fact]
    public void Read_ValidDigitsThenGarbage_WipesTheDigitsAlreadyDecoded()
    {
        string path = _folder.Write("k.hex", _key.Hex + "zz");
        byte[] read = new byte[32];

        Assert.Throws<ToolException>(() => KeyFileReader.Read(path, read));

        Assert.All(read, b => Assert.Equal(0, b));
    }

    [Fact]
    public void Read_MissingFile_SaysSoWithoutThePath()
    {
        string path = _folder.File(_key.Hex);

        ToolException exception = Assert.Throws<ToolException>(() => KeyFileReader.Read(path, new byte[32]));

        Assert.Equal(ExitCodes.BadInput, exception.ExitCode);
        Assert.Contains("does not exist", exception.Message, StringComparison.Ordinal);

        // The path is never printed: here it is the key itself, as when an operator passes the key instead of a file.
        Assert.DoesNotContain(_key.Hex, exception.Message, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public void Read_Folder_FailsWithBadInput()
    {
        ToolException exception = Assert.Throws<ToolException>(() => KeyFileReader.Read(_folder.Path, new byte[32]));

        Assert.Equal(ExitCodes.BadInput, exception.ExitCode);
        Assert.Equal(ToolException.InvalidKeyFileKind, exception.Kind);
    }

    [Fact]
    public void Read_HugeWhitespaceFile_StopsAtTheSizeLimit()
    {
        string path = _folder.Write("k.hex", _key.Hex + new string(' ', 70 * 1024));

        ToolException exception = Assert.Throws<ToolException>(() => KeyFileReader.Read(path, new byte[32]));

        Assert.Contains("larger than 64 KiB", exception.Message, StringComparison.Ordinal);
    }
}

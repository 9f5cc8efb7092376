using System.Buffers;
using System.Text;
using System.Text.Json;
using Encryption.Custom.Json.Text;

namespace Encryption.Custom.Tests.Json.Text;

public sealed class JsonStringEscaperTests
{
    [Theory]
    [InlineData("plain", "\"plain\"")]
    [InlineData("", "\"\"")]
    [InlineData("q\"b\\", "\"q\\\"b\\\\\"")]
    [InlineData("\n\r\t\b\f", "\"\\n\\r\\t\\b\\f\"")]
    [InlineData("\u0001\u001f", "\"\\u0001\\u001F\"")]
    [InlineData("é😀/<>+", "\"é😀/<>+\"")]
    public void WriteQuoted_EscapesOnlyWhatJsonRequires(string value, string expected)
    {
        var output = new ArrayBufferWriter<byte>();

        JsonStringEscaper.WriteQuoted(output, Encoding.UTF8.GetBytes(value));

        Assert.Equal(expected, Encoding.UTF8.GetString(output.WrittenSpan));
        Assert.Equal(value, JsonSerializer.Deserialize<string>(output.WrittenSpan));
    }

    [Fact]
    public void WriteQuoted_EveryByteValueOfValidText_RoundTripsThroughAReader()
    {
        string all = new(Enumerable.Range(0, 0x800).Select(i => (char)i).ToArray());
        var output = new ArrayBufferWriter<byte>(1);

        JsonStringEscaper.WriteQuoted(output, Encoding.UTF8.GetBytes(all));

        Assert.Equal(all, JsonSerializer.Deserialize<string>(output.WrittenSpan));
    }
}

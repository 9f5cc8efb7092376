using System.Text;
using Encryption.Custom.Json.Text;

namespace Encryption.Custom.Tests.Json.Text;

public sealed class JsonWhitespaceTests
{
    [Theory]
    [InlineData("{ \"a\" : [ 1 , 2 ] }", "{\"a\":[1,2]}")]
    [InlineData("[\n\t\"x  y\" ,\r\n \"\\\" \\\\ \" ]", "[\"x  y\",\"\\\" \\\\ \"]")]
    [InlineData("{\"s\":\"\\\\\",\"t\" : \" \"}", "{\"s\":\"\\\\\",\"t\":\" \"}")]
    [InlineData("[]", "[]")]
    public void Compact_RemovesOnlyWhitespaceOutsideStrings(string json, string expected)
    {
        byte[] source = Encoding.UTF8.GetBytes(json);
        byte[] destination = new byte[source.Length];

        int written = JsonWhitespace.Compact(source, destination);

        Assert.Equal(expected, Encoding.UTF8.GetString(destination, 0, written));
    }

    [Fact]
    public void ContainsWhitespace_FindsAnyOfTheFourBytes()
    {
        Assert.False(JsonWhitespace.ContainsWhitespace("{\"a\":1}"u8));
        Assert.True(JsonWhitespace.ContainsWhitespace("{\"a\":\"b c\"}"u8));
        Assert.True(JsonWhitespace.ContainsWhitespace("[1,\n2]"u8));
    }
}

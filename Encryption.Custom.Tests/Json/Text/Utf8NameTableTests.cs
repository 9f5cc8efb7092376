using System.Globalization;
using System.Text;
using Encryption.Custom.Json.Text;

namespace Encryption.Custom.Tests.Json.Text;

public sealed class Utf8NameTableTests
{
    [Fact]
    public void AddAndFind_ManyNames_FindsEachAtItsIndex()
    {
        var table = new Utf8NameTable();
        byte[][] names = Enumerable.Range(0, 500).Select(i => Encoding.UTF8.GetBytes("name" + i.ToString(CultureInfo.InvariantCulture))).ToArray();

        for (int i = 0; i < names.Length; i++)
        {
            Assert.Equal(i, table.Add(names[i]));
        }

        for (int i = 0; i < names.Length; i++)
        {
            Assert.Equal(i, table.Find(names[i]));
            Assert.Equal(names[i], table.GetName(i).ToArray());
        }

        Assert.Equal(-1, table.Find("name500"u8));
        Assert.Equal(-1, table.Find("name"u8));
        Assert.Equal(-1, table.Find(ReadOnlySpan<byte>.Empty));
    }

    [Fact]
    public void Add_ExistingName_ReturnsMinusOne()
    {
        var table = new Utf8NameTable();
        table.Add("a"u8);

        Assert.Equal(-1, table.Add("a"u8));
        Assert.Equal(1, table.Count);
    }

    [Fact]
    public void Clear_ForgetsEverythingAndTheTableIsReusable()
    {
        var table = new Utf8NameTable();
        for (int i = 0; i < 50; i++)
        {
            table.Add(Encoding.UTF8.GetBytes("n" + i.ToString(CultureInfo.InvariantCulture)));
        }

        table.Clear();

        Assert.Equal(0, table.Count);
        Assert.Equal(-1, table.Find("n1"u8));
        Assert.Equal(0, table.Add("n1"u8));
        Assert.Equal(0, table.Find("n1"u8));
    }
}

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

    [Fact]
    public void Find_NamesOfEveryLengthDifferingInOneByte_FindsEachExactly()
    {
        // Every length from 0 to 40 (short names are hashed from words read at both ends, long ones byte by byte),
        // and for each length a variant differing at every single position: each must be found at its own index.
        var table = new Utf8NameTable();
        var names = new List<byte[]>();
        for (int length = 0; length <= 40; length++)
        {
            byte[] name = Enumerable.Range(0, length).Select(i => (byte)('a' + (i % 26))).ToArray();
            names.Add(name);
            for (int position = 0; position < length; position++)
            {
                byte[] variant = (byte[])name.Clone();
                variant[position] = (byte)'#';
                names.Add(variant);
            }
        }

        for (int i = 0; i < names.Count; i++)
        {
            Assert.Equal(i, table.Add(names[i]));
        }

        for (int i = 0; i < names.Count; i++)
        {
            Assert.Equal(i, table.Find(names[i]));
        }

        // Two bytes changed: not among the names added, though each differs from one of them in a single byte.
        Assert.Equal(-1, table.Find("abcdefgh##"u8));
        Assert.Equal(-1, table.Find("#bcdefghijklmno#"u8));
    }
}

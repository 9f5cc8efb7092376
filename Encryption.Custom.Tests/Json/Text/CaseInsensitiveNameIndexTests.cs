using System.Text;
using Encryption.Custom.Json.Text;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Json.Text;

/// <summary>The index must answer exactly as a scan of every name with <see cref="StringComparison.OrdinalIgnoreCase"/> would.</summary>
public sealed class CaseInsensitiveNameIndexTests
{
    // Letters whose case mappings surprise: dotless i, long s, Kelvin sign, sharp s, Greek sigmas, a surrogate pair.
    private static readonly string[] s_pieces = ["s", "S", "n", "N", "i", "I", "\u0131", "\u0130", "\u017F", "k", "K", "\u212A", "\u00DF", "\u03C3", "\u03A3", "\u03C2", "_", "1", "\U0001F600", "\u00E9", "\u00C9"];

    private static Gen<string> Names =>
        from count in Gen.Choose(0, 6)
        from pieces in Gen.ArrayOf(Gen.Elements(s_pieces), count)
        select string.Concat(pieces);

    [Fact]
    public void Find_GeneratedNames_AgreesWithOrdinalIgnoreCaseScan()
    {
        Gen<(string[] Paths, string Name)> cases =
            from paths in Gen.ArrayOf(Names)
            from name in Gen.OneOf(Names, paths.Length == 0 ? Names : Gen.Elements(paths).Select(Vary))
            select (paths, name);

        Prop.ForAll(cases.ToArbitrary(), c =>
        {
            var index = new CaseInsensitiveNameIndex(c.Paths);
            int expected = Array.FindIndex(c.Paths, p => string.Equals(p, c.Name, StringComparison.OrdinalIgnoreCase));
            return index.Find(c.Name) == expected && index.Find(Encoding.UTF8.GetBytes(c.Name)) == expected;
        }).QuickCheckThrowOnFailure();
    }

    [Fact]
    public void Find_ManyAsciiPaths_AgreesWithOrdinalIgnoreCaseScan()
    {
        // All-ASCII paths take the filter of folded bytes: hundreds of them, and names that differ from a path in
        // case only, in one character, or not at all, must still be answered exactly as the scan answers.
        Gen<string> asciiNames =
            from length in Gen.Choose(0, 12)
            from chars in Gen.ArrayOf(Gen.Elements("aAbBsSzZ019_-@`[{".ToCharArray()), length)
            select new string(chars);
        Gen<(string[] Paths, string Name)> cases =
            from count in Gen.Choose(1, 600)
            from paths in Gen.ArrayOf(asciiNames, count)
            from name in Gen.OneOf(asciiNames, Gen.Elements(paths).Select(Vary), Gen.Elements(paths).Select(p => p + "a"))
            select (paths, name);

        Prop.ForAll(cases.ToArbitrary(), c =>
        {
            var index = new CaseInsensitiveNameIndex(c.Paths);
            int expected = Array.FindIndex(c.Paths, p => string.Equals(p, c.Name, StringComparison.OrdinalIgnoreCase));
            return index.Find(c.Name) == expected && index.Find(Encoding.UTF8.GetBytes(c.Name)) == expected;
        }).QuickCheckThrowOnFailure();
    }

    [Fact]
    public void Find_NameLongerThanTheStackBuffer_IsFound()
    {
        string longName = new('a', 1000);
        var index = new CaseInsensitiveNameIndex(["x", longName]);

        Assert.Equal(1, index.Find(Encoding.UTF8.GetBytes(longName.ToUpperInvariant())));
        Assert.Equal(-1, index.Find(Encoding.UTF8.GetBytes(longName + "b")));
    }

    [Fact]
    public void Find_NonAsciiVariantOfAnAsciiName_IsFoundThoughItsUtf8LengthDiffers()
    {
        var index = new CaseInsensitiveNameIndex(["ssn"]);

        // U+017F (long s) upper-cases to 'S': serializers bind "\u017Fsn" to an "ssn" member.
        Assert.Equal(string.Equals("\u017Fsn", "ssn", StringComparison.OrdinalIgnoreCase) ? 0 : -1, index.Find("\u017Fsn"u8));
        Assert.Equal(0, index.Find("SsN"u8));
        Assert.Equal(-1, index.Find("ssn1"u8));
    }

    // Flips the case of some characters (a real variant) or leaves the name as it is.
    private static string Vary(string name) =>
        string.Create(name.Length, name, static (span, source) =>
        {
            for (int i = 0; i < source.Length; i++)
            {
                char c = source[i];
                span[i] = (i % 2 == 0) ? char.ToUpperInvariant(c) : char.ToLowerInvariant(c);
            }
        });
}

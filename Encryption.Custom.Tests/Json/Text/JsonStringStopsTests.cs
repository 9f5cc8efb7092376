using Encryption.Custom.Json.Text;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Json.Text;

/// <summary>The vectorized search for the end of plain string content finds what a byte-by-byte search finds.</summary>
public sealed class JsonStringStopsTests
{
    [Fact]
    public void IndexOf_GeneratedBytes_FindsTheFirstQuoteBackslashOrControlCharacter()
    {
        // Mostly plain bytes (ASCII and UTF-8 lead and continuation bytes), a stop now and then, at any offset across
        // the 32-byte steps and the remainder.
        Gen<byte> bytes = Gen.Frequency(
            (30, Gen.Choose(0x20, 0xFF).Select(value => (byte)value)),
            (1, Gen.Elements((byte)'"', (byte)'\\', (byte)0x00, (byte)0x1F, (byte)'\n')));
        Prop.ForAll(Gen.ArrayOf(bytes).ToArbitrary(), text =>
        {
            int expected = Array.FindIndex(text, value => value is (byte)'"' or (byte)'\\' or < 0x20);
            return JsonStringStops.IndexOf(text) == expected;
        }).QuickCheckThrowOnFailure();
    }
}

using System.Buffers;
using System.Globalization;
using System.Text;
using Encryption.Custom.Json.Text;

namespace Encryption.Custom.Tests.Json.Text;

public sealed class JsonNumberFormatterTests
{
    [Theory]
    [InlineData(0.0, "0.0")]
    [InlineData(-0.0, "-0.0")]
    [InlineData(100.0, "100.0")]
    [InlineData(-2.5, "-2.5")]
    [InlineData(0.1, "0.1")]
    [InlineData(1e300, "1E+300")]
    [InlineData(5e-324, "5E-324")]
    [InlineData(double.MaxValue, "1.7976931348623157E+308")]
    public void WriteDouble_WritesTheShortestRoundTripWithADecimalPoint(double value, string expected)
    {
        var output = new ArrayBufferWriter<byte>();

        JsonNumberFormatter.WriteDouble(output, value);

        string text = Encoding.UTF8.GetString(output.WrittenSpan);
        Assert.Equal(expected, text);
        Assert.Equal(BitConverter.DoubleToInt64Bits(value), BitConverter.DoubleToInt64Bits(double.Parse(text, CultureInfo.InvariantCulture)));
    }

    [Theory]
    [InlineData(long.MinValue)]
    [InlineData(long.MaxValue)]
    [InlineData(0L)]
    [InlineData(-42L)]
    public void WriteInt64_WritesTheInvariantText(long value)
    {
        var output = new ArrayBufferWriter<byte>();

        JsonNumberFormatter.WriteInt64(output, value);

        Assert.Equal(value.ToString(CultureInfo.InvariantCulture), Encoding.UTF8.GetString(output.WrittenSpan));
    }
}

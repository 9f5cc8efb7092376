using Encryption.Custom.Keys.Local;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Keys.Local;

public class AesKeyWrapTests
{
    [Theory]
    [MemberData(nameof(AesKeyWrapVectors.Rfc3394), MemberType = typeof(AesKeyWrapVectors))]
    public void Wrap_Rfc3394Vector_MatchesPublishedCipherText(string section, string kek, string keyData, string expected)
    {
        byte[] data = Convert.FromHexString(keyData);
        byte[] wrapped = new byte[AesKeyWrap.GetWrappedLength(data.Length)];

        AesKeyWrap.Wrap(Convert.FromHexString(kek), data, wrapped);

        Assert.True(Convert.FromHexString(expected).AsSpan().SequenceEqual(wrapped), $"RFC 3394 §{section}");
    }

    [Theory]
    [MemberData(nameof(AesKeyWrapVectors.Rfc3394), MemberType = typeof(AesKeyWrapVectors))]
    public void TryUnwrap_Rfc3394Vector_RecoversKeyData(string section, string kek, string keyData, string cipherText)
    {
        byte[] wrapped = Convert.FromHexString(cipherText);
        byte[] unwrapped = new byte[wrapped.Length - 8];

        bool ok = AesKeyWrap.TryUnwrap(Convert.FromHexString(kek), wrapped, unwrapped);

        Assert.True(ok, $"RFC 3394 §{section}");
        Assert.Equal(keyData, Convert.ToHexString(unwrapped));
    }

    [Theory]
    [MemberData(nameof(AesKeyWrapVectors.Rfc5649), MemberType = typeof(AesKeyWrapVectors))]
    public void WrapPadded_Rfc5649Vector_MatchesPublishedCipherText(string name, string kek, string key, string expected)
    {
        byte[] data = Convert.FromHexString(key);
        byte[] wrapped = new byte[AesKeyWrap.GetPaddedWrappedLength(data.Length)];

        AesKeyWrap.WrapPadded(Convert.FromHexString(kek), data, wrapped);

        Assert.True(Convert.FromHexString(expected).AsSpan().SequenceEqual(wrapped), $"RFC 5649, {name}");
    }

    [Theory]
    [MemberData(nameof(AesKeyWrapVectors.Rfc5649), MemberType = typeof(AesKeyWrapVectors))]
    public void TryUnwrapPadded_Rfc5649Vector_RecoversKey(string name, string kek, string key, string cipherText)
    {
        byte[] wrapped = Convert.FromHexString(cipherText);
        byte[] unwrapped = new byte[wrapped.Length];

        bool ok = AesKeyWrap.TryUnwrapPadded(Convert.FromHexString(kek), wrapped, unwrapped, out int written);

        Assert.True(ok, $"RFC 5649, {name}");
        Assert.Equal(key, Convert.ToHexString(unwrapped, 0, written));
    }

    [Fact]
    public void TryUnwrap_EveryBitFlipped_RejectsAndZeroesDestination()
    {
        (string _, string kek, string _, string cipherText) = AesKeyWrapVectors.Rfc3394Rows[5];
        byte[] original = Convert.FromHexString(cipherText);
        for (int bit = 0; bit < original.Length * 8; bit++)
        {
            byte[] tampered = (byte[])original.Clone();
            tampered[bit / 8] ^= (byte)(1 << (bit % 8));
            byte[] destination = new byte[tampered.Length - 8];

            bool ok = AesKeyWrap.TryUnwrap(Convert.FromHexString(kek), tampered, destination);

            Assert.False(ok, $"bit {bit}");
            Assert.All(destination, b => Assert.Equal(0, b));
        }
    }

    [Fact]
    public void TryUnwrapPadded_EveryByteFlipped_Rejects()
    {
        (string _, string kek, string _, string cipherText) = AesKeyWrapVectors.Rfc5649Rows[0];
        byte[] original = Convert.FromHexString(cipherText);
        for (int i = 0; i < original.Length; i++)
        {
            byte[] tampered = (byte[])original.Clone();
            tampered[i] ^= 0x01;

            Assert.False(AesKeyWrap.TryUnwrapPadded(Convert.FromHexString(kek), tampered, new byte[tampered.Length], out _), $"byte {i}");
        }
    }

    [Theory]
    [InlineData(0)]
    [InlineData(8)]
    [InlineData(17)]
    public void Wrap_LengthNotAllowedByRfc3394_Throws(int length)
    {
        Assert.Throws<ArgumentException>(() => AesKeyWrap.Wrap(new byte[32], new byte[length], new byte[length + 8]));
    }

    [Theory]
    [InlineData(16)]
    [InlineData(20)]
    [InlineData(41)]
    public void TryUnwrap_LengthNotAllowedByRfc3394_ReturnsFalse(int length)
    {
        Assert.False(AesKeyWrap.TryUnwrap(new byte[32], new byte[length], new byte[64]));
    }

    [Fact]
    public void Wrap_KeyOfWrongSize_Throws()
    {
        Assert.Throws<ArgumentException>(() => AesKeyWrap.Wrap(new byte[20], new byte[32], new byte[40]));
    }

    [Fact]
    public void WrapThenUnwrap_AnyKeyAndData_RoundTripsBothVariants()
    {
        Prop.ForAll(
            Gen.Elements(16, 24, 32).SelectMany(size => Gen.ArrayOf(ArbMap.Default.GeneratorFor<byte>(), size)).ToArbitrary(),
            Gen.Choose(2, 8).SelectMany(blocks => Gen.ArrayOf(ArbMap.Default.GeneratorFor<byte>(), blocks * 8)).ToArbitrary(),
            (kek, data) =>
            {
                byte[] wrapped = new byte[AesKeyWrap.GetWrappedLength(data.Length)];
                AesKeyWrap.Wrap(kek, data, wrapped);
                byte[] unwrapped = new byte[data.Length];
                bool ok = AesKeyWrap.TryUnwrap(kek, wrapped, unwrapped);

                byte[] padded = new byte[AesKeyWrap.GetPaddedWrappedLength(data.Length - 3)];
                AesKeyWrap.WrapPadded(kek, data.AsSpan(3), padded);
                byte[] unpadded = new byte[padded.Length];
                bool okPadded = AesKeyWrap.TryUnwrapPadded(kek, padded, unpadded, out int written);

                return ok && unwrapped.AsSpan().SequenceEqual(data)
                    && okPadded && unpadded.AsSpan(0, written).SequenceEqual(data.AsSpan(3));
            }).QuickCheckThrowOnFailure();
    }
}

using System.Buffers.Text;
using Encryption.Custom.Json.WireFormat;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Json.WireFormat;

/// <summary>
/// <see cref="IdCellText"/>: the stored form of an encrypted id (URL-safe base64 without padding) turns back into
/// exactly the standard form it came from, holds nothing Cosmos DB refuses in an id, and any other text (the standard
/// alphabet, padding, a length no base64 has, too long) is refused, so each cell keeps one string form at the id.
/// </summary>
public sealed class IdCellTextTests
{
    [Fact]
    public void EveryBlob_RoundTripsThroughTheStoredForm_AndTheStoredFormIsAValidId()
    {
        Prop.ForAll(ArbMap.Default.ArbFor<byte[]>().Filter(b => b.Length is > 0 and <= 190), blob =>
        {
            byte[] standard = new byte[Base64.GetMaxEncodedToUtf8Length(blob.Length)];
            Base64.EncodeToUtf8(blob, standard, out _, out int encoded);
            byte[] text = standard[..encoded];
            int storedLength = IdCellText.ToStored(text);
            ReadOnlySpan<byte> stored = text.AsSpan(0, storedLength);
            Assert.True(stored.IndexOfAny("/\\?#+="u8) < 0);
            Assert.Equal(Base64Url.EncodeToString(blob), System.Text.Encoding.ASCII.GetString(stored));
            Span<byte> scratch = stackalloc byte[IdCellText.StandardScratchLength];
            Assert.True(IdCellText.ToStandard(stored, scratch).SequenceEqual(standard.AsSpan(0, encoded)));
        }).QuickCheckThrowOnFailure();
    }

    [Theory]
    [InlineData("AgE+abc")]   // the standard alphabet
    [InlineData("AgE/abc")]
    [InlineData("AgEabc==")]  // padding
    [InlineData("AgEab")]     // a length no base64 has (5 = 1 mod 4)
    [InlineData("AgE ab")]
    [InlineData("")]
    public void AnythingButTheCanonicalStoredForm_IsNoCell(string text)
    {
        Span<byte> scratch = stackalloc byte[IdCellText.StandardScratchLength];
        Assert.True(IdCellText.ToStandard(System.Text.Encoding.ASCII.GetBytes(text), scratch).IsEmpty);
    }

    [Fact]
    public void AStoredFormLongerThanAnIdMayBe_IsNoCell_AndAnIdTooLongToEncrypt_IsRefused()
    {
        Span<byte> scratch = stackalloc byte[IdCellText.StandardScratchLength];
        Assert.True(IdCellText.ToStandard(new byte[256].AsSpan().ToArray().Select(_ => (byte)'A').ToArray(), scratch).IsEmpty);
        byte[] standard = new byte[344];
        Base64.EncodeToUtf8(new byte[258], standard, out _, out int encoded);
        EncryptionException error = Assert.Throws<EncryptionException>(() => IdCellText.ToStored(standard.AsSpan(0, encoded)));
        Assert.Equal(EncryptionErrorKind.LimitExceeded, error.Kind);
        Assert.Equal("/id", error.Path);
    }
}

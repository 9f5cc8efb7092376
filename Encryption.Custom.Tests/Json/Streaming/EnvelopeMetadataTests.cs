using System.Text;
using Encryption.Custom.Cosmos.Processing;

namespace Encryption.Custom.Tests.Cosmos.Processing;

public sealed class StoredEnvelopeTests
{
    private static StoredEnvelope? Read(string json) => StoredEnvelope.Read(Encoding.UTF8.GetBytes(json));

    [Fact]
    public void Read_EncryptedDocument_ReturnsKeyAlgorithmFormatAndPaths()
    {
        StoredEnvelope? envelope = Read("""{"id":"a","x":{"_ei":1},"_ei":{"_ef":3,"_en":"dek\u0031","_ea":"MdeAeadAes256CbcHmac256Randomized","_ed":null,"_ep":["/a","/b"],"future":{"n":[1]}}}""");

        Assert.NotNull(envelope);
        Assert.Equal(3, envelope.FormatVersion);
        Assert.Equal("dek1", envelope.DataEncryptionKeyId);
        Assert.Equal(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, envelope.Algorithm);
        Assert.Equal(["/a", "/b"], envelope.Paths);
    }

    [Theory]
    [InlineData("""{"id":"a"}""")]
    [InlineData("""{"id":"a","_ei":null}""")]
    public void Read_UnencryptedDocument_ReturnsNull(string json) => Assert.Null(Read(json));

    [Theory]
    [InlineData("""[1]""")]
    [InlineData("""{"_ei":"x"}""")]
    [InlineData("""{"_ei":{"_ef":"3","_en":"d","_ea":"a"}}""")]
    [InlineData("""{"_ei":{"_ef":3,"_ea":"a"}}""")]
    [InlineData("""{"_ei":{"_ef":3,"_en":"d","_ea":"a","_ep":[1]}}""")]
    [InlineData("""{"_ei":{"_ef":3,"_en":"secret-looking-text""")]
    public void Read_MalformedMetadata_ThrowsMalformedDocumentWithoutQuotingIt(string json)
    {
        EncryptionException error = Assert.Throws<EncryptionException>(() => Read(json));

        Assert.Equal(EncryptionErrorKind.MalformedDocument, error.Kind);
        Assert.DoesNotContain("secret-looking-text", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void CountPaths_ReportsMinusOneWhenUnreadable()
    {
        Assert.Equal(2, StoredEnvelope.CountPaths("""{"_ei":{"_ef":3,"_en":"d","_ea":"a","_ep":["/a","/b"]}}"""u8));
        Assert.Equal(-1, StoredEnvelope.CountPaths("""{"id":1}"""u8));
        Assert.Equal(-1, StoredEnvelope.CountPaths("not json"u8));
    }
}

using System.Text;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Tests.Json.Streaming;

/// <summary>
/// <see cref="EnvelopeReader.ReadMetadata"/>: the metadata of a document with the rules decryption applies, the one
/// reader patch, batch, telemetry and the tool's inspect share.
/// </summary>
public sealed class EnvelopeMetadataTests
{
    private const string Algorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

    private static EnvelopeMetadata? Read(string json) => EnvelopeReader.ReadMetadata(Encoding.UTF8.GetBytes(json), EncryptionProcessorOptions.DefaultMaxDepth);

    [Fact]
    public void Read_EncryptedDocument_ReturnsKeyAlgorithmFormatAndPaths()
    {
        EnvelopeMetadata? envelope = Read("""{"id":"a","x":{"_ei":1},"a":"c1","b":"c2","_ei":{"_ef":3,"_en":"dek\u0031","_ea":"MdeAeadAes256CbcHmac256Randomized","_ed":null,"_ep":["/a","/b"],"future":{"n":[1]}}}""");

        Assert.NotNull(envelope);
        Assert.Equal(3, envelope.FormatVersion);
        Assert.Equal("dek1", envelope.DataEncryptionKeyId);
        Assert.Equal(Algorithm, envelope.Algorithm);
        Assert.Equal(["/a", "/b"], envelope.Paths);
    }

    [Fact]
    public void Read_LegacyDocument_ReturnsFormatTwo()
    {
        EnvelopeMetadata? envelope = Read("""{"id":"a","_ei":{"_ef":2,"_en":"d","_ea":"AEAes256CbcHmacSha256Randomized","_ed":"AAAA"}}""");

        Assert.Equal(2, envelope!.FormatVersion);
        Assert.Empty(envelope.Paths);
    }

    [Theory]
    [InlineData("""{"id":"a"}""")]
    [InlineData("""{"id":"a","_ei":null}""")]
    public void Read_UnencryptedDocument_ReturnsNull(string json) => Assert.Null(Read(json));

    [Theory]
    [InlineData("""[1]""")]
    [InlineData("""{"_ei":"x"}""")]
    [InlineData("""{"_ei":{"_ef":"3","_en":"d","_ea":"MdeAeadAes256CbcHmac256Randomized"}}""")]
    [InlineData("""{"_ei":{"_ef":3,"_ea":"MdeAeadAes256CbcHmac256Randomized"}}""")]
    [InlineData("""{"_ei":{"_ef":3,"_en":"d","_ea":"MdeAeadAes256CbcHmac256Randomized","_ep":[1]}}""")]
    [InlineData("""{"_ei":{"_ef":3,"_en":"secret-looking-text""")]
    public void Read_MalformedMetadata_ThrowsMalformedDocumentWithoutQuotingIt(string json)
    {
        EncryptionException error = Assert.Throws<EncryptionException>(() => Read(json));

        Assert.Equal(EncryptionErrorKind.MalformedDocument, error.Kind);
        Assert.DoesNotContain("secret-looking-text", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_WhatDecryptionRefuses_IsRefusedHereToo()
    {
        // An unknown algorithm, and a listed property that is not a string: a reader of its own accepted both.
        Assert.Throws<EncryptionException>(() => Read("""{"_ei":{"_ef":3,"_en":"d","_ea":"a","_ep":["/a"]}}"""));
        Assert.Throws<EncryptionException>(() => Read("""{"a":1,"_ei":{"_ef":3,"_en":"d","_ea":"MdeAeadAes256CbcHmac256Randomized","_ep":["/a"]}}"""));
    }
}

using Encryption.Custom.Cosmos;
using Encryption.Custom.Tests.Cosmos.TestSupport;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Cosmos;

/// <summary>The encryption container's point operations at its seam.</summary>
public sealed class EncryptionContainerTests : IDisposable
{
    private readonly EncryptionSetup _setup = new();

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public void Dispose() => _setup.Dispose();

    [Fact]
    public void WithEncryptor_OnAnEncryptionContainer_IsRejected() =>
        Assert.Throws<ArgumentException>(() => _setup.Container.WithEncryptor(_setup.Encryptor));

    [Fact]
    public void WithEncryptor_UnknownProcessor_IsRejected() =>
        Assert.Throws<ArgumentOutOfRangeException>(() => _setup.Inner.WithEncryptor(_setup.Encryptor, new EncryptionContainerOptions { JsonProcessor = (JsonProcessor)7 }));

    [Fact]
    public void CanRecycleBody_AvailabilityStrategy_KeepsBodiesOutOfThePool()
    {
        var container = (EncryptionContainer)_setup.Container;
        var hedged = new ItemRequestOptions { AvailabilityStrategy = AvailabilityStrategy.CrossRegionHedgingStrategy(TimeSpan.FromMilliseconds(100), null) };

        Assert.True(container.CanRecycleBody(null));
        Assert.True(container.CanRecycleBody(new ItemRequestOptions()));
        Assert.False(container.CanRecycleBody(hedged));
    }

    [Fact]
    public async Task StreamWrite_WithoutOptions_SendsTheBodyUnchanged()
    {
        using ResponseMessage response = await _setup.Container.CreateItemStreamAsync(EncryptionSetup.ToStream("""{"id":"p","pk":"p0","ssn":"plain"}"""), EncryptionSetup.P0, cancellationToken: Ct);

        JObject sent = Assert.Single(_setup.Inner.ReceivedBodies);
        Assert.Equal("plain", (string?)sent["ssn"]);
        Assert.Null(sent["_ei"]);
        Assert.Equal("plain", (string?)EncryptionSetup.ReadJson(response.Content)["ssn"]);
    }

    [Fact]
    public async Task Write_WithOptions_SendsCiphertextOnceAndAnswersPlaintext()
    {
        JObject response = await _setup.CreateEncryptedAsync("""{"id":"e","pk":"p0","ssn":"secret","n":1.5}""", EncryptionSetup.Dek1, "/ssn", "/n");

        JObject sent = Assert.Single(_setup.Inner.ReceivedBodies);
        Assert.NotEqual("secret", (string?)sent["ssn"]);
        Assert.Equal(JTokenType.String, sent["n"]!.Type);
        Assert.Equal(["/ssn", "/n"], sent["_ei"]!["_ep"]!.Values<string>());
        Assert.Equal("secret", (string?)response["ssn"]);
        Assert.Equal(1.5, (double)response["n"]!);
        Assert.Null(response["_ei"]);
    }

    [Theory]
    [InlineData(JsonProcessor.Stream)]
    [InlineData(JsonProcessor.Newtonsoft)]
    public async Task StreamWrite_SeekablePayloadPositionedAtItsEnd_IsEncryptedWholeAsTheSdkSendsIt(JsonProcessor processor)
    {
        // EF Core's Cosmos provider hands over the MemoryStream it has just written, positioned at its end.
        foreach (MemoryStream payload in new[] { EncryptionSetup.ToStream("""{"id":"ef","pk":"p0","ssn":"secret"}"""), Written("""{"id":"ef","pk":"p0","ssn":"secret"}""") })
        {
            payload.Seek(0, SeekOrigin.End);
            EncryptionItemRequestOptions options = EncryptionSetup.Encrypt(EncryptionSetup.Dek1, "/ssn");
            options.EncryptionOptions!.JsonProcessor = processor;

            using ResponseMessage response = await _setup.Container.UpsertItemStreamAsync(payload, EncryptionSetup.P0, options, Ct);

            Assert.True(response.IsSuccessStatusCode, response.ErrorMessage);
            Assert.NotEqual("secret", (string?)_setup.Inner.ReceivedBodies.Last()["ssn"]);
            Assert.Equal("secret", (string?)EncryptionSetup.ReadJson(response.Content)["ssn"]);
        }

        static MemoryStream Written(string json)
        {
            var stream = new MemoryStream();
            stream.Write(System.Text.Encoding.UTF8.GetBytes(json));
            return stream;
        }
    }

    [Fact]
    public async Task Read_WithPerRequestProcessor_DecryptsWithIt()
    {
        await _setup.CreateEncryptedAsync("""{"id":"r","pk":"p0","ssn":"secret"}""", EncryptionSetup.Dek2, "/ssn");
        EncryptionItemRequestOptions options = EncryptionSetup.Encrypt(EncryptionSetup.Dek2, "/ssn");
        options.EncryptionOptions!.JsonProcessor = JsonProcessor.Newtonsoft;

        using ResponseMessage response = await _setup.Container.ReadItemStreamAsync("r", EncryptionSetup.P0, options, Ct);

        Assert.Equal("secret", (string?)EncryptionSetup.ReadJson(response.Content)["ssn"]);
    }

    [Fact]
    public async Task Read_Missing_ReturnsTheServiceResponseUntouched()
    {
        using ResponseMessage response = await _setup.Container.ReadItemStreamAsync("none", EncryptionSetup.P0, cancellationToken: Ct);

        Assert.Equal(System.Net.HttpStatusCode.NotFound, response.StatusCode);
        Assert.Null(response.Content);
    }
}

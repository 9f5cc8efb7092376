using Encryption.Custom.Cosmos;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>
/// Documents are interchangeable: between the two processors (per request and per container), and with documents
/// in Microsoft's format (known-answer values written by the reference implementation).
/// </summary>
public sealed class InteroperabilityTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static EncryptionItemRequestOptions Encrypt(JsonProcessor processor)
    {
        EncryptionItemRequestOptions options = EncryptionFixture.Encrypt(EncryptionFixture.Dek1, SecretDocument.SecretPaths);
        options.EncryptionOptions!.JsonProcessor = processor;
        return options;
    }

    [Theory]
    [InlineData(JsonProcessor.Newtonsoft, JsonProcessor.Stream)]
    [InlineData(JsonProcessor.Stream, JsonProcessor.Newtonsoft)]
    public async Task DocumentWrittenByOneProcessor_IsReadByTheOther(JsonProcessor writer, JsonProcessor reader)
    {
        (Container raw, Container defaultContainer) = await fixture.GetSharedContainerAsync(Ct);
        Container readerContainer = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { JsonProcessor = reader });
        SecretDocument document = SecretDocument.Create() with { Notes = "note \"with\" escapes \u00e9" };

        await defaultContainer.CreateItemAsync(document, document.PartitionKey, Encrypt(writer), Ct);
        ItemResponse<SecretDocument> read = await readerContainer.ReadItemAsync<SecretDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);
        ItemResponse<SecretDocument> perRequest = await defaultContainer.ReadItemAsync<SecretDocument>(document.Id, document.PartitionKey, Encrypt(reader), Ct);
        List<SecretDocument> queried = await readerContainer.GetItemQueryIterator<SecretDocument>(
            new QueryDefinition("SELECT * FROM c WHERE c.id = @id").WithParameter("@id", document.Id)).ReadAllAsync(Ct);

        Assert.True(document.ValueEquals(read.Resource));
        Assert.True(document.ValueEquals(perRequest.Resource));
        Assert.True(document.ValueEquals(Assert.Single(queried)));
        JObject stored = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        Assert.Equal(["/ssn", "/salary", "/rating", "/active", "/address", "/tags", "/notes"], stored["_ei"]!["_ep"]!.Values<string>());
    }

    [Fact]
    public async Task ReferenceFormatDocument_WithKnownAnswerValues_DecryptsThroughTheContainer()
    {
        // Values from the wire-format reference: root key 0x01..0x20, fixed IV 0x00..0x0f.
        await fixture.AddKnownAnswerDekAsync("katDek", Ct);
        (Container raw, Container container) = await fixture.GetSharedContainerAsync(Ct);
        string id = Guid.NewGuid().ToString("N");
        string json = $$$"""
            {"id":"{{{id}}}","pk":"p0",
             "s":"AgFPKXw7s9jtbwh7oU9mEKdwJWAUgB8pr4hti+1nvIfcoQABAgMEBQYHCAkKCwwNDg92uiY0TEw4p5D3+lQLmRnj",
             "l":"BAHzvw7xKshA+BLmTMyKy19z2IcniZw1mazo+B7A3IzQ8gABAgMEBQYHCAkKCwwNDg9Nd7RrEgaV6utmtwr3e/xv",
             "b":"BQGhALrHEJ/VDddKse4eoT0HUisSXHfuL3Qm4Nhleo2TcQABAgMEBQYHCAkKCwwNDg9Xtd6h3d59y8Xi+aJ8Zf0f",
             "_ei":{"_ef":3,"_en":"katDek","_ea":"MdeAeadAes256CbcHmac256Randomized","_ed":null,"_ep":["/s","/l","/b"]}}
            """;
        (await raw.CreateItemStreamAsync(PointOperationTests.ToStream(json), new PartitionKey("p0"), cancellationToken: Ct)).Dispose();

        using ResponseMessage read = await container.ReadItemStreamAsync(id, new PartitionKey("p0"), cancellationToken: Ct);
        JObject decrypted = await PointOperationTests.ReadJsonAsync(read.Content);

        Assert.Equal("hello", (string?)decrypted["s"]);
        Assert.Equal(42, (long)decrypted["l"]!);
        Assert.True((bool)decrypted["b"]!);
        Assert.Null(decrypted["_ei"]);
    }
}

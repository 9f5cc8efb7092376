using Encryption.Custom.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>Patch through an encryption container: encrypted paths get encrypted values and consistent metadata.</summary>
[SdkSmoke]
public sealed class PatchTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private async Task<(Container Raw, Container Encrypted, SecretDocument Document)> CreateAsync(string dek = EncryptionFixture.Dek1, EncryptionContainerOptions? options = null)
    {
        (Container raw, Container container) = options is null
            ? await fixture.GetSharedContainerAsync(Ct)
            : await fixture.CreateContainerAsync(options: options, cancellationToken: Ct);
        SecretDocument document = SecretDocument.Create();
        await container.CreateItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt(dek, SecretDocument.SecretPaths), Ct);
        return (raw, container, document);
    }

    [Fact]
    public async Task Patch_SetOnEncryptedPath_StoresCiphertextAndKeepsMetadata()
    {
        (Container raw, Container container, SecretDocument document) = await CreateAsync(EncryptionFixture.Dek2);

        ItemResponse<SecretDocument> patched = await container.PatchItemAsync<SecretDocument>(
            document.Id, document.PartitionKey, [PatchOperation.Set("/ssn", "000-11-2222"), PatchOperation.Set("/name", "Renamed"), PatchOperation.Replace("/salary", 12)], cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.OK, patched.StatusCode);
        Assert.True((document with { Ssn = "000-11-2222", Name = "Renamed", Salary = 12 }).ValueEquals(patched.Resource));
        JObject stored = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        Assert.NotEqual("000-11-2222", (string?)stored["ssn"]);
        Assert.Equal(JTokenType.String, stored["salary"]!.Type);
        Assert.Equal("Renamed", (string?)stored["name"]);
        Assert.Equal(EncryptionFixture.Dek2, (string?)stored["_ei"]!["_en"]);
        Assert.Equal(["/ssn", "/salary", "/rating", "/active", "/address", "/tags"], stored["_ei"]!["_ep"]!.Values<string>());
        ItemResponse<SecretDocument> read = await container.ReadItemAsync<SecretDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.True(patched.Resource.ValueEquals(read.Resource));
    }

    [Fact]
    public async Task PatchStream_AddObjectAndArray_EncryptsThemWhole()
    {
        (Container raw, Container container, SecretDocument document) = await CreateAsync();

        using ResponseMessage response = await container.PatchItemStreamAsync(
            document.Id, document.PartitionKey, [PatchOperation.Add("/address", new Address("Elm St 2", "Shelbyville")), PatchOperation.Set("/tags", new[] { "x", "y", "z" })], cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        JObject body = await PointOperationTests.ReadJsonAsync(response.Content);
        Assert.Equal("Shelbyville", (string?)body["address"]!["city"]);
        Assert.Equal(["x", "y", "z"], body["tags"]!.Values<string>());
        Assert.Null(body["_ei"]);
        JObject stored = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        Assert.Equal(JTokenType.String, stored["address"]!.Type);
        Assert.Equal(JTokenType.String, stored["tags"]!.Type);
    }

    [Fact]
    public async Task Patch_RemoveEncryptedPath_DropsItFromMetadata()
    {
        (Container raw, Container container, SecretDocument document) = await CreateAsync();

        using ResponseMessage response = await container.PatchItemStreamAsync(document.Id, document.PartitionKey, [PatchOperation.Remove("/ssn")], cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        JObject stored = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        Assert.Null(stored["ssn"]);
        Assert.Equal(["/salary", "/rating", "/active", "/address", "/tags"], stored["_ei"]!["_ep"]!.Values<string>());
        using ResponseMessage read = await container.ReadItemStreamAsync(document.Id, document.PartitionKey, cancellationToken: Ct);
        JObject decrypted = await PointOperationTests.ReadJsonAsync(read.Content);
        Assert.Null(decrypted["ssn"]);
        Assert.Equal(document.Salary, (long)decrypted["salary"]!);
    }

    [Fact]
    public async Task Patch_SetNullThenValueWithOptions_StaysEncrypted()
    {
        (Container raw, Container container, SecretDocument document) = await CreateAsync();

        await container.PatchItemAsync<SecretDocument>(document.Id, document.PartitionKey, [PatchOperation.Set<string?>("/ssn", null)], cancellationToken: Ct);
        JObject afterNull = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        PatchItemRequestOptions options = new PatchItemRequestOptions().WithEncryptionOptions(EncryptionFixture.Options(EncryptionFixture.Dek1, SecretDocument.SecretPaths));
        ItemResponse<SecretDocument> patched = await container.PatchItemAsync<SecretDocument>(document.Id, document.PartitionKey, [PatchOperation.Set("/ssn", "back"), PatchOperation.Set("/notes", "now set")], options, Ct);

        Assert.Equal(JTokenType.Null, afterNull["ssn"]!.Type);
        Assert.DoesNotContain("/ssn", afterNull["_ei"]!["_ep"]!.Values<string>());
        JObject stored = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        Assert.NotEqual("back", (string?)stored["ssn"]);
        Assert.NotEqual("now set", (string?)stored["notes"]);
        Assert.Contains("/ssn", stored["_ei"]!["_ep"]!.Values<string>());
        Assert.Contains("/notes", stored["_ei"]!["_ep"]!.Values<string>());
        Assert.True((document with { Ssn = "back", Notes = "now set" }).ValueEquals(patched.Resource));
    }

    [Fact]
    public async Task Patch_UnencryptedDocumentWithOptions_BecomesEncrypted()
    {
        (Container raw, Container container) = await fixture.GetSharedContainerAsync(Ct);
        SecretDocument document = SecretDocument.Create() with { Salary = 10 };
        await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);

        PatchItemRequestOptions options = new PatchItemRequestOptions().WithEncryptionOptions(EncryptionFixture.Options(EncryptionFixture.Dek2, "/ssn"));
        ItemResponse<SecretDocument> patched = await container.PatchItemAsync<SecretDocument>(document.Id, document.PartitionKey, [PatchOperation.Set("/ssn", "secret now")], options, Ct);

        JObject stored = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        Assert.NotEqual("secret now", (string?)stored["ssn"]);
        Assert.Equal(EncryptionFixture.Dek2, (string?)stored["_ei"]!["_en"]);
        Assert.Equal(["/ssn"], stored["_ei"]!["_ep"]!.Values<string>());
        Assert.Equal("secret now", patched.Resource.Ssn);
    }

    [Fact]
    public async Task Patch_IncrementOnEncryptedPath_IsRejectedBeforeSending()
    {
        (Container raw, Container container, SecretDocument document) = await CreateAsync();
        JObject before = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() =>
            container.PatchItemAsync<SecretDocument>(document.Id, document.PartitionKey, [PatchOperation.Set("/name", "x"), PatchOperation.Increment("/salary", 1)], cancellationToken: Ct));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Equal("/salary", error.Path);
        Assert.Equal(EncryptionFixture.Dek1, error.DataEncryptionKeyId);
        JObject after = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        Assert.Equal((string?)before["_etag"], (string?)after["_etag"]);
    }

    [Fact]
    public async Task Patch_IncrementOnRequestedPath_IsRejectedWithoutReading()
    {
        (_, Container container) = await fixture.GetSharedContainerAsync(Ct);
        PatchItemRequestOptions options = new PatchItemRequestOptions().WithEncryptionOptions(EncryptionFixture.Options(EncryptionFixture.Dek1, "/salary"));

        // The document does not exist: a read would answer 404, so the error proves nothing was sent.
        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() =>
            container.PatchItemStreamAsync("missing", new PartitionKey("p0"), [PatchOperation.Increment("/salary", 1)], options, Ct));

        Assert.Equal("/salary", error.Path);
    }

    [Theory]
    [InlineData("nested")]
    [InlineData("move-from")]
    [InlineData("move-to")]
    [InlineData("metadata")]
    public async Task Patch_OperationsThatCannotWorkOnCiphertext_AreRejected(string kind)
    {
        (_, Container container, SecretDocument document) = await CreateAsync();
        PatchOperation operation = kind switch
        {
            "nested" => PatchOperation.Set("/address/city", "Ogdenville"),
            "move-from" => PatchOperation.Move("/ssn", "/plainSsn"),
            "move-to" => PatchOperation.Move("/name", "/ssn"),
            _ => PatchOperation.Set("/_ei/_ep", Array.Empty<string>()),
        };

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() =>
            container.PatchItemStreamAsync(document.Id, document.PartitionKey, [operation], cancellationToken: Ct));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        ItemResponse<SecretDocument> read = await container.ReadItemAsync<SecretDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.True(document.ValueEquals(read.Resource));
    }

    [Theory]
    [InlineData("move")]
    [InlineData("eleven")]
    public async Task Patch_WhatAPatchCannotCarry_WithOptions_IsAppliedAsAConditionalReplace(string kind)
    {
        (Container raw, Container container, SecretDocument document) = await CreateAsync();
        PatchOperation[] operations = kind == "move"
            ? [PatchOperation.Move("/ssn", "/notes")]
            : [.. Enumerable.Range(0, 10).Select(i => PatchOperation.Set($"/extra{i}", i)), PatchOperation.Set("/ssn", "000-99-8888")];
        PatchItemRequestOptions options = new PatchItemRequestOptions().WithEncryptionOptions(EncryptionFixture.Options(EncryptionFixture.Dek1, SecretDocument.SecretPaths));

        using ResponseMessage response = await container.PatchItemStreamAsync(document.Id, document.PartitionKey, operations, options, Ct);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        JObject body = await PointOperationTests.ReadJsonAsync(response.Content);
        JObject stored = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        string secret = kind == "move" ? document.Ssn! : "000-99-8888";
        // (The first 11 characters: the rest of the default SSN has quotes, which the raw text escapes.)
        Assert.DoesNotContain(secret[..11], stored.ToString(Newtonsoft.Json.Formatting.None), StringComparison.Ordinal);
        if (kind == "move")
        {
            // A format 3 cell's deterministic IV (and a bound cell's tag) names its path: the value is encrypted anew at its target.
            Assert.Null(body["ssn"]);
            Assert.Equal(secret, (string?)body["notes"]);
            Assert.Null(stored["ssn"]);
            Assert.Equal(JTokenType.String, stored["notes"]!.Type);
            Assert.Contains("/notes", stored["_ei"]!["_ep"]!.Values<string>());
        }
        else
        {
            // Eleven operations, one more than the service takes in one patch.
            Assert.Equal(secret, (string?)body["ssn"]);
            Assert.Equal(9, (int)stored["extra9"]!);
        }
    }

    [Fact]
    public async Task Patch_PlainOperationsOnEncryptedDocument_LeaveEncryptedValuesIntact()
    {
        (Container raw, Container container) = await fixture.GetSharedContainerAsync(Ct);
        string id = Guid.NewGuid().ToString("N");
        string json = $$"""{"id":"{{id}}","pk":"p0","ssn":"s","count":1,"label":"a"}""";
        (await container.CreateItemStreamAsync(PointOperationTests.ToStream(json), new PartitionKey("p0"), EncryptionFixture.Encrypt(EncryptionFixture.Dek1, "/ssn"), Ct)).Dispose();
        JObject before = await RawDocuments.ReadAsync(raw, id, new PartitionKey("p0"), Ct);

        using ResponseMessage response = await container.PatchItemStreamAsync(
            id, new PartitionKey("p0"), [PatchOperation.Increment("/count", 2), PatchOperation.Move("/label", "/renamed")],
            new PatchItemRequestOptions { FilterPredicate = "FROM c WHERE c.count = 1" }, Ct);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        JObject body = await PointOperationTests.ReadJsonAsync(response.Content);
        Assert.Equal(3, (int)body["count"]!);
        Assert.Equal("a", (string?)body["renamed"]);
        Assert.Equal("s", (string?)body["ssn"]);
        JObject stored = await RawDocuments.ReadAsync(raw, id, new PartitionKey("p0"), Ct);
        Assert.Equal((string?)before["ssn"], (string?)stored["ssn"]);
    }

    [Fact]
    public async Task Patch_MissingDocument_ReturnsNotFound()
    {
        (_, Container container) = await fixture.GetSharedContainerAsync(Ct);

        CosmosException error = await Assert.ThrowsAsync<CosmosException>(() =>
            container.PatchItemAsync<SecretDocument>("missing", new PartitionKey("p0"), [PatchOperation.Set("/name", "x")], cancellationToken: Ct));
        using ResponseMessage stream = await container.PatchItemStreamAsync("missing", new PartitionKey("p0"), [PatchOperation.Set("/name", "x")], cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.NotFound, error.StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, stream.StatusCode);
    }

    [Fact]
    public async Task Patch_CallerEtagStale_FailsWithPreconditionFailedWithoutRetry()
    {
        (_, Container container, SecretDocument document) = await CreateAsync();
        ItemResponse<SecretDocument> first = await container.PatchItemAsync<SecretDocument>(document.Id, document.PartitionKey, [PatchOperation.Set("/ssn", "one")], cancellationToken: Ct);
        await container.PatchItemAsync<SecretDocument>(document.Id, document.PartitionKey, [PatchOperation.Set("/ssn", "two")], cancellationToken: Ct);

        CosmosException error = await Assert.ThrowsAsync<CosmosException>(() =>
            container.PatchItemAsync<SecretDocument>(document.Id, document.PartitionKey, [PatchOperation.Set("/ssn", "three")], new PatchItemRequestOptions { IfMatchEtag = first.ETag }, Ct));

        Assert.Equal(HttpStatusCode.PreconditionFailed, error.StatusCode);
        ItemResponse<SecretDocument> read = await container.ReadItemAsync<SecretDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.Equal("two", read.Resource.Ssn);
    }

    [Fact]
    public async Task Patch_ManyConcurrentPatchesOnOneDocument_AllApplyEncrypted()
    {
        (Container raw, Container container, SecretDocument document) = await CreateAsync(options: new EncryptionContainerOptions { PatchMaxAttempts = 50 });
        const int Writers = 8;

        await Task.WhenAll(Enumerable.Range(0, Writers).Select(i => container.PatchItemStreamAsync(
            document.Id,
            document.PartitionKey,
            [PatchOperation.Set($"/secret{i}", $"value-{i}")],
            new PatchItemRequestOptions().WithEncryptionOptions(EncryptionFixture.Options(EncryptionFixture.Dek1, $"/secret{i}")),
            Ct).ContinueWith(t => t.Result.EnsureSuccessStatusCode().Dispose(), Ct, TaskContinuationOptions.None, TaskScheduler.Default)));

        JObject stored = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        using ResponseMessage read = await container.ReadItemStreamAsync(document.Id, document.PartitionKey, cancellationToken: Ct);
        JObject decrypted = await PointOperationTests.ReadJsonAsync(read.Content);
        for (int i = 0; i < Writers; i++)
        {
            Assert.NotEqual($"value-{i}", (string?)stored[$"secret{i}"]);
            Assert.Contains($"/secret{i}", stored["_ei"]!["_ep"]!.Values<string>());
            Assert.Equal($"value-{i}", (string?)decrypted[$"secret{i}"]);
        }

        Assert.Equal(document.Ssn, (string?)decrypted["ssn"]);
    }
}

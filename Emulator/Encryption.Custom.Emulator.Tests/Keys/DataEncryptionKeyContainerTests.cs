using System.Security.Cryptography;
using System.Text.Json;
using Encryption.Custom.Keys;
using Encryption.Custom.Keys.Cosmos;
using Encryption.Custom.Keys.Local;

namespace Encryption.Custom.Emulator.Tests.Keys;

/// <summary>The DEK container (create, read, rewrap, query, initialization) end to end through the real SDK.</summary>
[SdkSmoke]
public sealed class DataEncryptionKeyContainerTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>, IDisposable
{
    private const string Mde = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

    // The same two KEKs in every local provider of a test run, as two processes of one application would have them.
    private static readonly byte[] s_kek1 = RandomNumberGenerator.GetBytes(32);
    private static readonly byte[] s_kek2 = RandomNumberGenerator.GetBytes(32);

    private readonly LocalKeyWrapProvider _local = CreateLocalProvider();
    private readonly List<IDisposable> _disposables = [];

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static EncryptionKeyWrapMetadata Kek1 => LocalKeyWrapProvider.CreateMetadata("kek1", KeyWrapAlgorithm.AesKeyWrap);

    private static EncryptionKeyWrapMetadata Kek2 => LocalKeyWrapProvider.CreateMetadata("kek2", KeyWrapAlgorithm.AesKeyWrapPadded);

    public void Dispose()
    {
        foreach (IDisposable disposable in _disposables)
        {
            disposable.Dispose();
        }

        _local.Dispose();
    }

    [Fact]
    public async Task InitializeAsync_NewContainer_IsCreatedPartitionedById()
    {
        string containerId = "keys-" + Guid.NewGuid().ToString("N");
        CosmosDataEncryptionKeyProvider provider = Track(new CosmosDataEncryptionKeyProvider(_local));

        await provider.InitializeAsync(fixture.Database, containerId, Ct);

        ContainerResponse container = await fixture.Database.GetContainer(containerId).ReadContainerAsync(cancellationToken: Ct);
        Assert.Equal("/id", container.Resource.PartitionKeyPath);
        Assert.Equal(containerId, provider.Container.Id);
    }

    [Fact]
    public async Task InitializeAsync_ExistingContainerPartitionedById_IsUsed()
    {
        string containerId = "keys-" + Guid.NewGuid().ToString("N");
        CosmosDataEncryptionKeyProvider first = Track(new CosmosDataEncryptionKeyProvider(_local));
        await first.InitializeAsync(fixture.Database, containerId, Ct);
        await first.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);

        CosmosDataEncryptionKeyProvider second = Track(new CosmosDataEncryptionKeyProvider(_local));
        await second.InitializeAsync(fixture.Database, containerId, Ct);

        DataEncryptionKeyProperties read = (await second.DataEncryptionKeyContainer.ReadDataEncryptionKeyAsync("dek1", cancellationToken: Ct)).Resource;
        Assert.Equal(Kek1, read.EncryptionKeyWrapMetadata);
    }

    [Fact]
    public async Task InitializeAsync_ExistingContainerWithOtherPartitionKey_IsRejected()
    {
        Container other = await fixture.CreateContainerAsync("/tenant", Ct);
        CosmosDataEncryptionKeyProvider provider = Track(new CosmosDataEncryptionKeyProvider(_local));

        var error = await Assert.ThrowsAsync<ArgumentException>(() => provider.InitializeAsync(fixture.Database, other.Id, Ct));

        Assert.Contains("/tenant", error.Message, StringComparison.Ordinal);
        Assert.Throws<InvalidOperationException>(() => provider.Container);
    }

    [Fact]
    public async Task CreateDataEncryptionKeyAsync_StoresMicrosoftShapedDocument()
    {
        CosmosDataEncryptionKeyProvider provider = await CreateInitializedProviderAsync();

        ItemResponse<DataEncryptionKeyProperties> created = await provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        using ResponseMessage raw = await provider.Container.ReadItemStreamAsync("dek1", new PartitionKey("dek1"), cancellationToken: Ct);
        using JsonDocument document = await JsonDocument.ParseAsync(raw.Content, cancellationToken: Ct);
        JsonElement root = document.RootElement;
        Assert.Equal("dek1", root.GetProperty("id").GetString());
        Assert.Equal(Mde, root.GetProperty("encryptionAlgorithm").GetString());
        Assert.Equal(40, root.GetProperty("wrappedDataEncryptionKey").GetBytesFromBase64().Length);
        Assert.Equal("local", root.GetProperty("keyWrapMetadata").GetProperty("type").GetString());
        Assert.Equal("kek1", root.GetProperty("keyWrapMetadata").GetProperty("name").GetString());
        Assert.Equal(KeyWrapAlgorithm.AesKeyWrap, root.GetProperty("keyWrapMetadata").GetProperty("algorithm").GetString());
        Assert.Equal(JsonValueKind.Number, root.GetProperty("createTime").ValueKind);
        Assert.Equal(created.Resource.ETag, root.GetProperty("_etag").GetString());
        Assert.Equal(created.Resource.LastModified, DateTimeOffset.FromUnixTimeSeconds(root.GetProperty("_ts").GetInt64()));
    }

    [Fact]
    public async Task CreateDataEncryptionKeyAsync_IdTaken_ThrowsConflict()
    {
        CosmosDataEncryptionKeyProvider provider = await CreateInitializedProviderAsync();
        await provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);

        var error = await Assert.ThrowsAsync<CosmosException>(() => provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct));

        Assert.Equal(HttpStatusCode.Conflict, error.StatusCode);
    }

    [Fact]
    public async Task ReadDataEncryptionKeyAsync_AfterCreate_ReturnsTheStoredDocument()
    {
        CosmosDataEncryptionKeyProvider provider = await CreateInitializedProviderAsync();
        DataEncryptionKeyProperties created = (await provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct)).Resource;

        DataEncryptionKeyProperties read = (await provider.DataEncryptionKeyContainer.ReadDataEncryptionKeyAsync("dek1", cancellationToken: Ct)).Resource;

        Assert.Equal(created, read);
        using EncryptionKeyUnwrapResult unwrapped = await _local.UnwrapKeyAsync(read.WrappedDataEncryptionKey, read.EncryptionKeyWrapMetadata, Ct);
        Assert.Equal(32, unwrapped.DataEncryptionKey.Length);
    }

    [Fact]
    public async Task ReadDataEncryptionKeyAsync_Missing_ThrowsKeyUnavailable()
    {
        CosmosDataEncryptionKeyProvider provider = await CreateInitializedProviderAsync();

        var error = await Assert.ThrowsAsync<EncryptionException>(() => provider.DataEncryptionKeyContainer.ReadDataEncryptionKeyAsync("missing", cancellationToken: Ct));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Equal("missing", error.DataEncryptionKeyId);
    }

    [Fact]
    public async Task FetchDataEncryptionKeyAsync_Missing_ThrowsKeyUnavailable()
    {
        CosmosDataEncryptionKeyProvider provider = await CreateInitializedProviderAsync();

        var error = await Assert.ThrowsAsync<EncryptionException>(() => provider.FetchDataEncryptionKeyAsync("missing", Mde, Ct).AsTask());

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Equal("missing", error.DataEncryptionKeyId);
    }

    [Fact]
    public async Task RewrapDataEncryptionKeyAsync_NewKek_StoresTheSameKeyWrappedByIt()
    {
        CosmosDataEncryptionKeyProvider provider = await CreateInitializedProviderAsync();
        DataEncryptionKeyProperties created = (await provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct)).Resource;

        ItemResponse<DataEncryptionKeyProperties> response = await provider.DataEncryptionKeyContainer.RewrapDataEncryptionKeyAsync("dek1", Kek2, cancellationToken: Ct);
        DataEncryptionKeyProperties read = (await provider.DataEncryptionKeyContainer.ReadDataEncryptionKeyAsync("dek1", cancellationToken: Ct)).Resource;

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(Kek2, read.EncryptionKeyWrapMetadata);
        Assert.Equal(read.ETag, response.Resource.ETag);
        Assert.NotEqual(created.ETag, read.ETag);
        Assert.Equal(created.CreatedTime, read.CreatedTime);
        using EncryptionKeyUnwrapResult before = await _local.UnwrapKeyAsync(created.WrappedDataEncryptionKey, created.EncryptionKeyWrapMetadata, Ct);
        using EncryptionKeyUnwrapResult after = await _local.UnwrapKeyAsync(read.WrappedDataEncryptionKey, read.EncryptionKeyWrapMetadata, Ct);
        Assert.True(before.DataEncryptionKey.SequenceEqual(after.DataEncryptionKey));
    }

    [Fact]
    public async Task RewrapDataEncryptionKeyAsync_DocumentChangedMeanwhile_RetriesOnThe412AndSucceeds()
    {
        Container container = await CreateKeyContainerAsync();
        CosmosDataEncryptionKeyProvider setup = Track(new CosmosDataEncryptionKeyProvider(_local));
        setup.Initialize(container);
        await setup.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);

        // Another writer replaces the document (same content, new ETag) while the first rewrap is wrapping.
        var interfering = new InterferingWrapProvider(_local, () => TouchAsync(container, "dek1"));
        CosmosDataEncryptionKeyProvider provider = Track(new CosmosDataEncryptionKeyProvider(interfering));
        provider.Initialize(container);

        DataEncryptionKeyProperties rewrapped = (await provider.DataEncryptionKeyContainer.RewrapDataEncryptionKeyAsync("dek1", Kek2, cancellationToken: Ct)).Resource;

        Assert.Equal(1, interfering.Interferences);
        Assert.Equal(2, interfering.WrapCount);
        Assert.Equal(Kek2, rewrapped.EncryptionKeyWrapMetadata);
    }

    [Fact]
    public async Task GetDataEncryptionKeyQueryIterator_PagedAndParameterized_FindsTheKeys()
    {
        CosmosDataEncryptionKeyProvider provider = await CreateInitializedProviderAsync();
        foreach (string id in new[] { "a", "b", "c" })
        {
            await provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync(id, Mde, id == "b" ? Kek2 : Kek1, cancellationToken: Ct);
        }

        using FeedIterator<DataEncryptionKeyProperties> all = provider.DataEncryptionKeyContainer.GetDataEncryptionKeyQueryIterator(
            "SELECT * FROM c", requestOptions: new QueryRequestOptions { MaxItemCount = 2 });
        List<DataEncryptionKeyProperties> everything = await all.ReadAllAsync(Ct);
        using FeedIterator<DataEncryptionKeyProperties> byKek = provider.DataEncryptionKeyContainer.GetDataEncryptionKeyQueryIterator(
            new QueryDefinition("SELECT * FROM c WHERE c.keyWrapMetadata.name = @kek").WithParameter("@kek", "kek1"));
        List<DataEncryptionKeyProperties> wrappedByKek1 = await byKek.ReadAllAsync(Ct);

        Assert.Equal(["a", "b", "c"], everything.Select(p => p.Id).Order());
        Assert.Equal(["a", "c"], wrappedByKek1.Select(p => p.Id).Order());
    }

    [Fact]
    public async Task KeyOperations_ClientWithCustomSerializer_AreUnaffected()
    {
        using CosmosClient client = fixture.Endpoint.CreateClient(options => options.Serializer = new RefusingSerializer());
        Database database = client.GetDatabase(fixture.Database.Id);
        CosmosDataEncryptionKeyProvider provider = Track(new CosmosDataEncryptionKeyProvider(_local));
        await provider.InitializeAsync(database, "keys-" + Guid.NewGuid().ToString("N"), Ct);

        await provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);
        await provider.DataEncryptionKeyContainer.RewrapDataEncryptionKeyAsync("dek1", Kek2, cancellationToken: Ct);
        DataEncryptionKeyProperties read = (await provider.DataEncryptionKeyContainer.ReadDataEncryptionKeyAsync("dek1", cancellationToken: Ct)).Resource;
        using FeedIterator<DataEncryptionKeyProperties> query = provider.DataEncryptionKeyContainer.GetDataEncryptionKeyQueryIterator();

        Assert.Equal(Kek2, read.EncryptionKeyWrapMetadata);
        Assert.Single(await query.ReadAllAsync(Ct));
    }

    [Fact]
    public async Task CosmosEncryptor_WithProtectedKeys_EncryptsAndDecrypts()
    {
        CosmosDataEncryptionKeyProvider provider = await CreateInitializedProviderAsync();
        await provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);
        var encryptor = new CosmosEncryptor(provider);
        byte[] plainText = "a secret value"u8.ToArray();

        byte[] cipherText = await encryptor.EncryptAsync(plainText, "dek1", Mde, Ct);

        // Another process: a new provider over the same container reads the DEK from Cosmos DB and decrypts.
        CosmosDataEncryptionKeyProvider other = Track(new CosmosDataEncryptionKeyProvider(_local));
        other.Initialize(provider.Container);
        byte[] decrypted = await new CosmosEncryptor(other).DecryptAsync(cipherText, "dek1", Mde, Ct);

        Assert.Equal(49 + 16, cipherText.Length);
        Assert.Equal(plainText, decrypted);
    }

    [Fact]
    public async Task FetchDataEncryptionKeyAsync_DocumentRewrittenToAnotherKek_IsRefusedByTheAllowList()
    {
        // Someone with write access to the DEK container (and none to the KEKs) swaps dek1's document for a DEK they
        // know, wrapped under another key the application can use. Without an allow-list a fresh process accepts it.
        CosmosDataEncryptionKeyProvider provider = await CreateInitializedProviderAsync();
        await provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);
        byte[] known = RandomNumberGenerator.GetBytes(32);
        EncryptionKeyWrapResult swapped = await _local.WrapKeyAsync(known, Kek2, Ct);
        using (ResponseMessage read = await provider.Container.ReadItemStreamAsync("dek1", new PartitionKey("dek1"), cancellationToken: Ct))
        {
            var document = System.Text.Json.Nodes.JsonNode.Parse(read.Content)!.AsObject();
            document["wrappedDataEncryptionKey"] = Convert.ToBase64String(swapped.WrappedDataEncryptionKey.Span);
            document["keyWrapMetadata"] = new System.Text.Json.Nodes.JsonObject { ["type"] = "local", ["name"] = "kek2", ["value"] = "kek2", ["algorithm"] = KeyWrapAlgorithm.AesKeyWrapPadded };
            using var body = new MemoryStream(System.Text.Encoding.UTF8.GetBytes(document.ToJsonString()));
            using ResponseMessage replaced = await provider.Container.ReplaceItemStreamAsync(body, "dek1", new PartitionKey("dek1"), cancellationToken: Ct);
            replaced.EnsureSuccessStatusCode();
        }

        CosmosDataEncryptionKeyProvider unrestricted = Track(new CosmosDataEncryptionKeyProvider(_local));
        unrestricted.Initialize(provider.Container);
        await unrestricted.FetchDataEncryptionKeyAsync("dek1", Mde, Ct);

        using LocalKeyWrapProvider allowList = CreateLocalProvider(allowed: "kek1");
        CosmosDataEncryptionKeyProvider restricted = Track(new CosmosDataEncryptionKeyProvider(allowList));
        restricted.Initialize(provider.Container);
        var error = await Assert.ThrowsAsync<EncryptionException>(async () => await restricted.FetchDataEncryptionKeyAsync("dek1", Mde, Ct));
        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Contains("'kek2'", error.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain(Convert.ToBase64String(known), error.ToString(), StringComparison.Ordinal);
    }

    private static LocalKeyWrapProvider CreateLocalProvider(string? allowed = null)
    {
        var options = new LocalKeyWrapProviderOptions();
        if (allowed is not null)
        {
            options.AllowedKeyNames.Add(allowed);
        }

        var provider = new LocalKeyWrapProvider(options);
        provider.AddAesKey("kek1", s_kek1);
        provider.AddAesKey("kek2", s_kek2);
        return provider;
    }

    private static async Task TouchAsync(Container container, string id)
    {
        using ResponseMessage read = await container.ReadItemStreamAsync(id, new PartitionKey(id), cancellationToken: Ct);
        read.EnsureSuccessStatusCode();
        using var body = new MemoryStream();
        await read.Content.CopyToAsync(body, Ct);
        body.Position = 0;
        using ResponseMessage replaced = await container.ReplaceItemStreamAsync(body, id, new PartitionKey(id), cancellationToken: Ct);
        replaced.EnsureSuccessStatusCode();
    }

    private async Task<Container> CreateKeyContainerAsync() => await fixture.CreateContainerAsync(CosmosDataEncryptionKeyProvider.ContainerPartitionKeyPath, Ct);

    private async Task<CosmosDataEncryptionKeyProvider> CreateInitializedProviderAsync()
    {
        CosmosDataEncryptionKeyProvider provider = Track(new CosmosDataEncryptionKeyProvider(_local));
        provider.Initialize(await CreateKeyContainerAsync());
        return provider;
    }

    private T Track<T>(T disposable)
        where T : IDisposable
    {
        _disposables.Add(disposable);
        return disposable;
    }

    /// <summary>Runs an action (another writer) during the first wrap.</summary>
    private sealed class InterferingWrapProvider(EncryptionKeyWrapProvider inner, Func<Task> interfere) : EncryptionKeyWrapProvider
    {
        public int Interferences { get; private set; }

        public int WrapCount { get; private set; }

        public override async Task<EncryptionKeyWrapResult> WrapKeyAsync(ReadOnlyMemory<byte> key, EncryptionKeyWrapMetadata metadata, CancellationToken cancellationToken = default)
        {
            WrapCount++;
            if (Interferences == 0)
            {
                Interferences++;
                await interfere();
            }

            return await inner.WrapKeyAsync(key, metadata, cancellationToken);
        }

        public override Task<EncryptionKeyUnwrapResult> UnwrapKeyAsync(ReadOnlyMemory<byte> wrappedKey, EncryptionKeyWrapMetadata metadata, CancellationToken cancellationToken = default) =>
            inner.UnwrapKeyAsync(wrappedKey, metadata, cancellationToken);
    }

    /// <summary>A client serializer that refuses everything: key operations must never go through it.</summary>
    private sealed class RefusingSerializer : CosmosSerializer
    {
        public override T FromStream<T>(Stream stream) => throw new InvalidOperationException("The client serializer was used.");

        public override Stream ToStream<T>(T input) => throw new InvalidOperationException("The client serializer was used.");
    }
}

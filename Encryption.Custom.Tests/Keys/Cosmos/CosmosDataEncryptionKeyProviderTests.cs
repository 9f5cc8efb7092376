using System.Net;
using System.Security.Cryptography;
using System.Text.Json.Nodes;
using Encryption.Custom.Keys;
using Encryption.Custom.Keys.Cosmos;
using Encryption.Custom.Keys.Local;
using Encryption.Custom.Tests.Cosmos.TestSupport;
using Encryption.Custom.Tests.Keys.TestSupport;
using Microsoft.Azure.Cosmos;
using Microsoft.Extensions.Time.Testing;

namespace Encryption.Custom.Tests.Keys.Cosmos;

/// <summary>Seam tests of the DEK container over a fake <see cref="Container"/> (the end-to-end tests run against the emulator).</summary>
public sealed class CosmosDataEncryptionKeyProviderTests : IDisposable
{
    private const string Mde = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

    private readonly FakeTimeProvider _time = new(TestClock.Start);
    private readonly LocalKeyWrapProvider _local = new();
    private readonly DelegatingWrapProvider _wrap;
    private readonly TestKeyFactory _keys = new();
    private readonly FakeContainer _container = new("keys", "/id");
    private readonly CosmosDataEncryptionKeyProvider _provider;

    public CosmosDataEncryptionKeyProviderTests()
    {
        _local.AddAesKey("kek1", RandomNumberGenerator.GetBytes(32));
        _local.AddAesKey("kek2", RandomNumberGenerator.GetBytes(32));
        _wrap = new DelegatingWrapProvider(_local);
        _provider = CreateProvider(new CosmosDataEncryptionKeyProviderOptions());
        _provider.Initialize(_container);
    }

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static EncryptionKeyWrapMetadata Kek1 => LocalKeyWrapProvider.CreateMetadata("kek1", KeyWrapAlgorithm.AesKeyWrap);

    private static EncryptionKeyWrapMetadata Kek2 => LocalKeyWrapProvider.CreateMetadata("kek2", KeyWrapAlgorithm.AesKeyWrapPadded);

    public void Dispose()
    {
        _provider.Dispose();
        _local.Dispose();
    }

    [Fact]
    public async Task CreateDataEncryptionKeyAsync_StoresMicrosoftShapedDocument()
    {
        ItemResponse<DataEncryptionKeyProperties> response = await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);

        JsonObject written = JsonNode.Parse(Assert.Single(_container.ReceivedBodies).ToString())!.AsObject();
        Assert.Equal(["id", "encryptionAlgorithm", "wrappedDataEncryptionKey", "keyWrapMetadata", "createTime"], written.Select(member => member.Key));
        Assert.Equal(["type", "name", "value", "algorithm"], written["keyWrapMetadata"]!.AsObject().Select(member => member.Key));
        Assert.Equal("local", written["keyWrapMetadata"]!["type"]!.GetValue<string>());
        Assert.Equal(_time.GetUtcNow().ToUnixTimeSeconds(), written["createTime"]!.GetValue<long>());
        Assert.Equal(40, Convert.FromBase64String(written["wrappedDataEncryptionKey"]!.GetValue<string>()).Length);
        Assert.Equal(HttpStatusCode.Created, response.StatusCode);
        Assert.False(string.IsNullOrEmpty(response.Resource.ETag));
        Assert.Equal(response.Resource.ETag, response.ETag);
    }

    [Fact]
    public async Task CreateDataEncryptionKeyAsync_ThenFetch_GivesTheKeyThatTheDocumentUnwrapsTo()
    {
        await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);
        DataEncryptionKeyProperties stored = (await _provider.DataEncryptionKeyContainer.ReadDataEncryptionKeyAsync("dek1", cancellationToken: Ct)).Resource;

        DataEncryptionKey key = await _provider.FetchDataEncryptionKeyAsync("dek1", Mde, Ct);

        using EncryptionKeyUnwrapResult expected = await _local.UnwrapKeyAsync(stored.WrappedDataEncryptionKey, stored.EncryptionKeyWrapMetadata, Ct);
        Assert.Equal(expected.DataEncryptionKey.ToArray(), ((TestDataEncryptionKey)key).RawKey);
        Assert.Equal(32, expected.DataEncryptionKey.Length);
    }

    [Fact]
    public async Task CreateDataEncryptionKeyAsync_ThenFetch_NeedsNoContainerRead()
    {
        await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);

        await _provider.FetchDataEncryptionKeyAsync("dek1", Mde, Ct);

        Assert.Equal(0, _container.ReadItemCount);
    }

    [Fact]
    public async Task CreateDataEncryptionKeyAsync_TwoKeys_AreDifferent()
    {
        await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);
        await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek2", Mde, Kek1, cancellationToken: Ct);

        byte[] first = ((TestDataEncryptionKey)await _provider.FetchDataEncryptionKeyAsync("dek1", Mde, Ct)).RawKey;
        byte[] second = ((TestDataEncryptionKey)await _provider.FetchDataEncryptionKeyAsync("dek2", Mde, Ct)).RawKey;

        Assert.NotEqual(first, second);
    }

    [Fact]
    public async Task CreateDataEncryptionKeyAsync_ProviderUnwrapsToAnotherKey_StoresNothing()
    {
        _wrap.UnwrapReplacement = RandomNumberGenerator.GetBytes(32);

        var error = await Assert.ThrowsAsync<EncryptionException>(() => _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Equal("dek1", error.DataEncryptionKeyId);
        Assert.Contains("did not unwrap to the same key", error.Message, StringComparison.Ordinal);
        Assert.Empty(_container.ReceivedBodies);
    }

    [Fact]
    public async Task CreateDataEncryptionKeyAsync_UnknownAlgorithm_ThrowsInvalidOptionsAndStoresNothing()
    {
        var error = await Assert.ThrowsAsync<EncryptionException>(() => _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", "Aes256Gcm", Kek1, cancellationToken: Ct));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Empty(_container.ReceivedBodies);
        Assert.Equal(0, _wrap.WrapCount);
    }

    [Fact]
    public async Task CreateDataEncryptionKeyAsync_UnknownKek_ThrowsKeyUnavailableNamingTheDek()
    {
        var error = await Assert.ThrowsAsync<EncryptionException>(() => _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, LocalKeyWrapProvider.CreateMetadata("nope", KeyWrapAlgorithm.AesKeyWrap), cancellationToken: Ct));

        Assert.Equal("dek1", error.DataEncryptionKeyId);
        Assert.IsType<EncryptionException>(error.InnerException);
        Assert.Empty(_container.ReceivedBodies);
    }

    [Fact]
    public async Task CreateDataEncryptionKeyAsync_IdExists_ThrowsConflict()
    {
        await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);

        var error = await Assert.ThrowsAsync<CosmosException>(() => _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct));

        Assert.Equal(HttpStatusCode.Conflict, error.StatusCode);
    }

    [Fact]
    public async Task ReadDataEncryptionKeyAsync_Missing_ThrowsKeyUnavailable()
    {
        var error = await Assert.ThrowsAsync<EncryptionException>(() => _provider.DataEncryptionKeyContainer.ReadDataEncryptionKeyAsync("missing", cancellationToken: Ct));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Equal("missing", error.DataEncryptionKeyId);
        Assert.Equal(HttpStatusCode.NotFound, Assert.IsType<CosmosException>(error.InnerException).StatusCode);
    }

    [Fact]
    public async Task FetchDataEncryptionKeyAsync_DocumentMissingWrappedKey_ThrowsKeyUnavailableNamingTheDek()
    {
        _container.Seed("{\"id\":\"broken\",\"encryptionAlgorithm\":\"MdeAeadAes256CbcHmac256Randomized\",\"keyWrapMetadata\":{\"type\":\"local\",\"value\":\"kek1\",\"algorithm\":\"AES-KW\"}}");

        var error = await Assert.ThrowsAsync<EncryptionException>(() => _provider.FetchDataEncryptionKeyAsync("broken", Mde, Ct).AsTask());

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Equal("broken", error.DataEncryptionKeyId);
        Assert.Contains("wrappedDataEncryptionKey", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task FetchDataEncryptionKeyAsync_DocumentWrittenByAnotherLibrary_Unwraps()
    {
        // Member order, extra system members and an explicit null as Newtonsoft writes them in Microsoft's package.
        byte[] raw = RandomNumberGenerator.GetBytes(32);
        EncryptionKeyWrapResult wrapped = await _local.WrapKeyAsync(raw, Kek1, Ct);
        _container.Seed(
            $"{{\"id\":\"theirs\",\"createTime\":1600000000,\"encryptionAlgorithm\":\"{Mde}\"," +
            "\"keyWrapMetadata\":{\"type\":\"local\",\"algorithm\":\"AES-KW\",\"name\":\"kek1\",\"value\":\"kek1\"}," +
            $"\"wrappedDataEncryptionKey\":\"{Convert.ToBase64String(wrapped.WrappedDataEncryptionKey.Span)}\",\"_attachments\":\"attachments/\",\"ttl\":null}}");

        DataEncryptionKey key = await _provider.FetchDataEncryptionKeyAsync("theirs", Mde, Ct);

        Assert.Equal(raw, ((TestDataEncryptionKey)key).RawKey);
    }

    [Fact]
    public async Task RewrapDataEncryptionKeyAsync_NewKek_KeepsTheRawKeyAndInvalidatesTheCache()
    {
        DataEncryptionKeyProperties created = (await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct)).Resource;
        DataEncryptionKey before = await _provider.FetchDataEncryptionKeyAsync("dek1", Mde, Ct);
        byte[] raw = ((TestDataEncryptionKey)before).RawKey;

        ItemResponse<DataEncryptionKeyProperties> response = await _provider.DataEncryptionKeyContainer.RewrapDataEncryptionKeyAsync("dek1", Kek2, cancellationToken: Ct);
        DataEncryptionKey after = await _provider.FetchDataEncryptionKeyAsync("dek1", Mde, Ct);

        DataEncryptionKeyProperties stored = (await _provider.DataEncryptionKeyContainer.ReadDataEncryptionKeyAsync("dek1", cancellationToken: Ct)).Resource;
        using EncryptionKeyUnwrapResult withKek2 = await _local.UnwrapKeyAsync(stored.WrappedDataEncryptionKey, stored.EncryptionKeyWrapMetadata, Ct);
        Assert.Equal(Kek2, stored.EncryptionKeyWrapMetadata);
        Assert.Equal(raw, withKek2.DataEncryptionKey.ToArray());
        Assert.Equal(created.CreatedTime, stored.CreatedTime);
        Assert.NotEqual(created.ETag, stored.ETag);
        Assert.Equal(stored.ETag, response.Resource.ETag);
        Assert.True(((TestDataEncryptionKey)before).IsDisposed);
        Assert.Equal(raw, ((TestDataEncryptionKey)after).RawKey);
        await Assert.ThrowsAsync<EncryptionException>(() => _local.UnwrapKeyAsync(stored.WrappedDataEncryptionKey, Kek1, Ct));
    }

    // The service applied the write but its answer was damaged on its way (here: a member missing): the stored document
    // is read back and, being the one written, confirms the write, instead of an "invalid DEK document" for a DEK that is fine.
    [Fact]
    public async Task CreateDataEncryptionKeyAsync_AnswerDamagedInTransit_IsConfirmedFromTheStoredDocument()
    {
        _container.AlterWriteAnswer = answer =>
        {
            answer.Remove("wrappedDataEncryptionKey");
            return answer;
        };

        DataEncryptionKeyProperties created = (await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct)).Resource;

        JsonObject stored = _container.GetDocument("dek1")!;
        Assert.Equal(stored["wrappedDataEncryptionKey"]!.GetValue<string>(), Convert.ToBase64String(created.WrappedDataEncryptionKey.Span));
        Assert.Equal(stored["_etag"]!.GetValue<string>(), created.ETag);
        Assert.Equal(Kek1, created.EncryptionKeyWrapMetadata);
        Assert.Equal(1, _container.ReadItemCount);
    }

    // The read-back finds another document than the one written (another writer got in since): the write is not
    // confirmed, and the error says it was applied rather than calling the document invalid.
    [Fact]
    public async Task RewrapDataEncryptionKeyAsync_AnswerDamagedAndAnotherWriterSince_SaysTheWriteWasAppliedButIsNotWhatIsStored()
    {
        await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);
        _container.AlterWriteAnswer = answer =>
        {
            var other = (Newtonsoft.Json.Linq.JObject)answer.DeepClone();
            other["wrappedDataEncryptionKey"] = Convert.ToBase64String(RandomNumberGenerator.GetBytes(40));
            _container.Put(other, new PartitionKey("dek1"));
            answer.Remove("wrappedDataEncryptionKey");
            return answer;
        };

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => _provider.DataEncryptionKeyContainer.RewrapDataEncryptionKeyAsync("dek1", Kek2, cancellationToken: Ct));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Equal("dek1", error.DataEncryptionKeyId);
        Assert.Contains("was written (the service answered with success)", error.Message, StringComparison.Ordinal);
        Assert.Contains("another writer changed it since", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RewrapDataEncryptionKeyAsync_AnotherWriterOnce_RetriesAndSucceeds()
    {
        await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);
        _container.ConcurrentWritesBeforeReplace = 1;

        ItemResponse<DataEncryptionKeyProperties> response = await _provider.DataEncryptionKeyContainer.RewrapDataEncryptionKeyAsync("dek1", Kek2, cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(2, _container.ReplaceCount);
        Assert.Equal(Kek2, response.Resource.EncryptionKeyWrapMetadata);
    }

    [Fact]
    public async Task RewrapDataEncryptionKeyAsync_AnotherWriterEveryTime_GivesUpWithClearError()
    {
        await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);
        _container.ConcurrentWritesBeforeReplace = int.MaxValue;

        var error = await Assert.ThrowsAsync<EncryptionException>(() => _provider.DataEncryptionKeyContainer.RewrapDataEncryptionKeyAsync("dek1", Kek2, cancellationToken: Ct));

        Assert.Equal("dek1", error.DataEncryptionKeyId);
        Assert.Contains("3 attempts", error.Message, StringComparison.Ordinal);
        Assert.Equal(HttpStatusCode.PreconditionFailed, Assert.IsType<CosmosException>(error.InnerException).StatusCode);
        Assert.Equal(3, _container.ReplaceCount);
        Assert.Equal(Kek1, (await _provider.DataEncryptionKeyContainer.ReadDataEncryptionKeyAsync("dek1", cancellationToken: Ct)).Resource.EncryptionKeyWrapMetadata);
    }

    [Fact]
    public async Task RewrapDataEncryptionKeyAsync_CallerETagStale_ReturnsThe412WithoutRetrying()
    {
        await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);
        var options = new ItemRequestOptions { IfMatchEtag = "\"stale\"" };

        var error = await Assert.ThrowsAsync<CosmosException>(() => _provider.DataEncryptionKeyContainer.RewrapDataEncryptionKeyAsync("dek1", Kek2, requestOptions: options, cancellationToken: Ct));

        Assert.Equal(HttpStatusCode.PreconditionFailed, error.StatusCode);
        Assert.Equal(1, _container.ReplaceCount);
        Assert.Equal("\"stale\"", options.IfMatchEtag);
    }

    [Fact]
    public async Task RewrapDataEncryptionKeyAsync_NoContentResponse_StillReturnsTheNewETag()
    {
        await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);

        ItemResponse<DataEncryptionKeyProperties> response = await _provider.DataEncryptionKeyContainer.RewrapDataEncryptionKeyAsync(
            "dek1", Kek2, requestOptions: new ItemRequestOptions { EnableContentResponseOnWrite = false }, cancellationToken: Ct);

        string? storedETag = _container.GetDocument("dek1")!["_etag"]!.GetValue<string>();
        Assert.Equal(storedETag, response.Resource.ETag);
        Assert.Equal(Kek2, response.Resource.EncryptionKeyWrapMetadata);
    }

    [Fact]
    public async Task RewrapDataEncryptionKeyAsync_Missing_ThrowsKeyUnavailable()
    {
        var error = await Assert.ThrowsAsync<EncryptionException>(() => _provider.DataEncryptionKeyContainer.RewrapDataEncryptionKeyAsync("missing", Kek2, cancellationToken: Ct));

        Assert.Equal("missing", error.DataEncryptionKeyId);
        Assert.Equal(0, _container.ReplaceCount);
    }

    [Fact]
    public async Task RewrapDataEncryptionKeyAsync_CurrentKekUnavailable_ThrowsAndChangesNothing()
    {
        await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);
        _wrap.UnwrapFailure = new TimeoutException("key store down");

        var error = await Assert.ThrowsAsync<EncryptionException>(() => _provider.DataEncryptionKeyContainer.RewrapDataEncryptionKeyAsync("dek1", Kek2, cancellationToken: Ct));

        Assert.Equal("dek1", error.DataEncryptionKeyId);
        Assert.IsType<TimeoutException>(error.InnerException);
        Assert.Equal(0, _container.ReplaceCount);
    }

    [Fact]
    public async Task GetDataEncryptionKeyQueryIterator_SeveralPages_ReadsEveryKey()
    {
        foreach (string id in new[] { "a", "b", "c" })
        {
            await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync(id, Mde, Kek1, cancellationToken: Ct);
        }

        var ids = new List<string>();
        int pages = 0;
        using FeedIterator<DataEncryptionKeyProperties> iterator = _provider.DataEncryptionKeyContainer.GetDataEncryptionKeyQueryIterator(
            "SELECT * FROM c", requestOptions: new QueryRequestOptions { MaxItemCount = 2 });
        while (iterator.HasMoreResults)
        {
            FeedResponse<DataEncryptionKeyProperties> page = await iterator.ReadNextAsync(Ct);
            pages++;
            ids.AddRange(page.Select(properties => properties.Id));
            Assert.Equal(page.Resource.Count(), page.Count);
        }

        Assert.Equal(["a", "b", "c"], ids);
        Assert.Equal(2, pages);
    }

    [Fact]
    public async Task InitializeAsync_NoContainer_CreatesItPartitionedById()
    {
        var database = new FakeDatabase("db");
        using CosmosDataEncryptionKeyProvider provider = CreateProvider(new CosmosDataEncryptionKeyProviderOptions());

        await provider.InitializeAsync(database, "keys", Ct);

        Assert.Equal("/id", database.Containers["keys"].PartitionKeyPath);
        Assert.Same(database.Containers["keys"], provider.Container);
    }

    [Fact]
    public async Task InitializeAsync_ContainerWithOtherPartitionKey_RejectsIt()
    {
        var database = new FakeDatabase("db");
        database.Containers["keys"] = new FakeContainer("keys", "/tenant");
        using CosmosDataEncryptionKeyProvider provider = CreateProvider(new CosmosDataEncryptionKeyProviderOptions());

        var error = await Assert.ThrowsAsync<ArgumentException>(() => provider.InitializeAsync(database, "keys", Ct));

        Assert.Contains("/tenant", error.Message, StringComparison.Ordinal);
        Assert.Throws<InvalidOperationException>(() => provider.Container);
    }

    [Fact]
    public async Task InitializeAsync_Twice_Throws()
    {
        var database = new FakeDatabase("db");
        using CosmosDataEncryptionKeyProvider provider = CreateProvider(new CosmosDataEncryptionKeyProviderOptions());
        await provider.InitializeAsync(database, "keys", Ct);

        await Assert.ThrowsAsync<InvalidOperationException>(() => provider.InitializeAsync(database, "keys", Ct));
    }

    [Fact]
    public async Task Operations_BeforeInitialize_ThrowInvalidOperation()
    {
        using CosmosDataEncryptionKeyProvider provider = CreateProvider(new CosmosDataEncryptionKeyProviderOptions());

        await Assert.ThrowsAsync<InvalidOperationException>(() => provider.FetchDataEncryptionKeyAsync("dek1", Mde, Ct).AsTask());
        await Assert.ThrowsAsync<InvalidOperationException>(() => provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct));
        Assert.Throws<InvalidOperationException>(() => provider.DataEncryptionKeyContainer.GetDataEncryptionKeyQueryIterator());
    }

    [Fact]
    public void Constructor_DistributedCacheWithoutPrefix_Throws()
    {
        var options = new CosmosDataEncryptionKeyProviderOptions
        {
            DistributedCache = new Microsoft.Extensions.Caching.Distributed.MemoryDistributedCache(
                Microsoft.Extensions.Options.Options.Create(new Microsoft.Extensions.Caching.Memory.MemoryDistributedCacheOptions())),
        };

        Assert.Throws<ArgumentException>(() => new CosmosDataEncryptionKeyProvider(_local, options));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-1)]
    public void Constructor_RewrapAttemptsBelowOne_Throws(int attempts)
    {
        Assert.Throws<ArgumentException>(() => new CosmosDataEncryptionKeyProvider(_local, new CosmosDataEncryptionKeyProviderOptions { RewrapMaxAttempts = attempts }));
    }

    [Fact]
    public async Task Dispose_DisposesCachedKeys()
    {
        await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);
        var key = (TestDataEncryptionKey)await _provider.FetchDataEncryptionKeyAsync("dek1", Mde, Ct);

        _provider.Dispose();

        Assert.True(key.IsDisposed);
    }

    [Fact]
    public async Task DisposeAsync_AsAwaitUsing_DisposesCachedKeysAndLaterFetchesNameTheProvider()
    {
        var key = default(TestDataEncryptionKey);
        await using (CosmosDataEncryptionKeyProvider provider = CreateProvider(new CosmosDataEncryptionKeyProviderOptions()))
        {
            provider.Initialize(_container);
            await provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);
            key = (TestDataEncryptionKey)await provider.FetchDataEncryptionKeyAsync("dek1", Mde, Ct);
        }

        Assert.True(key.IsDisposed);
    }

    [Fact]
    public async Task FetchDataEncryptionKeyAsync_AfterDispose_ThrowsNamingTheProvider()
    {
        await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);
        _provider.Dispose();

        var error = await Assert.ThrowsAsync<ObjectDisposedException>(async () => await _provider.FetchDataEncryptionKeyAsync("dek1", Mde, Ct));

        Assert.Equal(typeof(CosmosDataEncryptionKeyProvider).FullName, error.ObjectName);
    }

    [Fact]
    public async Task FetchDataEncryptionKeyWithoutRawKeyAsync_IsTheSameFetch()
    {
        await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Kek1, cancellationToken: Ct);

        DataEncryptionKey key = await _provider.FetchDataEncryptionKeyWithoutRawKeyAsync("dek1", Mde, Ct);

        Assert.Same(await _provider.FetchDataEncryptionKeyAsync("dek1", Mde, Ct), key);
    }

    private CosmosDataEncryptionKeyProvider CreateProvider(CosmosDataEncryptionKeyProviderOptions options)
    {
        options.TimeProvider = _time;
        return new CosmosDataEncryptionKeyProvider(_wrap, options, _keys);
    }
}

using Encryption.Custom.Keys;
using Encryption.Custom.Tests.TestSupport;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Queries;

/// <summary>
/// <c>AddParameterAsync</c> is asynchronous all the way (issue 33): on a key-cache miss it returns a pending task and
/// awaits the key provider instead of blocking the caller's thread until the key arrives.
/// </summary>
public sealed class AddParameterAsyncTests : IDisposable
{
    private readonly CosmosClient _client = new("AccountEndpoint=https://localhost:8081/;AccountKey=" + Convert.ToBase64String(new byte[64]));

    public void Dispose() => _client.Dispose();

    [Fact]
    public async Task AKeyThatIsNotThereYet_IsAwaited_NotWaitedFor()
    {
        var provider = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var encryptor = new TestEncryptor { AnswerAfter = provider.Task }.Add("dek", TestKeys.Create(TestKeyKind.Protected));
        Container container = _client.GetContainer("db", "people").WithEncryptor(encryptor, new EncryptionContainerOptions { Policy = QueryGuardTests.Policy });

        // A blocking implementation would not return before the key arrives: release it after a while regardless,
        // so that such an implementation fails the assertion below instead of hanging the run.
        using var release = new Timer(_ => provider.TrySetResult(), null, TimeSpan.FromSeconds(5), Timeout.InfiniteTimeSpan);
        Task<QueryDefinition> pending = new QueryDefinition("SELECT * FROM c WHERE c.ssn = @p")
            .AddParameterAsync("@p", "078-05-1120", "/ssn", container, TestContext.Current.CancellationToken);
        bool returnedBeforeTheKey = !pending.IsCompleted;
        provider.TrySetResult();
        QueryDefinition query = await pending;

        Assert.True(returnedBeforeTheKey, "AddParameterAsync blocked its thread until the key provider answered");
        Assert.DoesNotContain(query.GetQueryParameters(), p => p.Value is "078-05-1120");
        Assert.Single(query.GetQueryParameters());
    }
}

using Encryption.Custom.Cosmos;
using Encryption.Custom.Keys;
using Encryption.Custom.Tests.TestSupport;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Queries;

/// <summary>
/// An <c>AddParameterAsync</c> value is bound to the path it was made for (issue 32): compared with another path it
/// is refused, naming both, instead of silently matching nothing (or losing the rows of one side of an OR); and a
/// path differing from the policy's only in case is answered with the policy's spelling, not with "use WithParameter".
/// </summary>
public sealed class ParameterPathBindingTests : IDisposable
{
    private static readonly DataEncryptionKey s_key = TestKeys.Create(TestKeyKind.Protected);
    private readonly CosmosClient _client = new("AccountEndpoint=https://localhost:8081/;AccountKey=" + Convert.ToBase64String(new byte[64]));
    private readonly Container _container;

    public ParameterPathBindingTests()
    {
        _container = _client.GetContainer("db", "people").WithEncryptor(
            new TestEncryptor().Add("dek", s_key),
            new EncryptionContainerOptions { Policy = QueryGuardTests.Policy });
    }

    public void Dispose() => _client.Dispose();

    [Theory]
    [InlineData("SELECT * FROM c WHERE c.age = @p")]
    [InlineData("SELECT * FROM c WHERE c.ssn = @q OR c.age = @p")]
    [InlineData("SELECT * FROM c WHERE c.age IN (@p)")]
    public async Task AValueMadeForOnePath_ComparedWithAnother_IsRefusedNamingBoth(string text)
    {
        QueryDefinition query = await new QueryDefinition(text)
            .AddParameterAsync("@p", "078-05-1120", "/ssn", _container, TestContext.Current.CancellationToken);
        query = query.WithParameter("@q", "x");

        NotSupportedException refused = Assert.Throws<NotSupportedException>(() => Guard.Check(query));
        Assert.Contains("@p", refused.Message, StringComparison.Ordinal);
        Assert.Contains("'/ssn'", refused.Message, StringComparison.Ordinal);
        Assert.Contains("'/age'", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AValueMadeForItsPath_IsUsedAsItIs()
    {
        QueryDefinition query = await new QueryDefinition("SELECT * FROM c WHERE c.ssn = @p AND c.name = @n")
            .AddParameterAsync("@p", "078-05-1120", "/ssn", _container, TestContext.Current.CancellationToken);

        Assert.Contains("@__enc0", Guard.Check(query.WithParameter("@n", "plain")).QueryText, StringComparison.Ordinal);
    }

    [Fact]
    public async Task APathDifferingOnlyInCase_NamesThePolicysPath()
    {
        NotSupportedException refused = await Assert.ThrowsAsync<NotSupportedException>(() =>
            new QueryDefinition("SELECT * FROM c WHERE c.ssn = @p").AddParameterAsync("@p", "x", "/Ssn", _container, TestContext.Current.CancellationToken));

        Assert.Contains("'/ssn'", refused.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("WithParameter", refused.Message, StringComparison.Ordinal);
    }

    private Encryption.Custom.Cosmos.Queries.QueryGuard Guard => ((EncryptionContainer)_container).QueryGuard;
}

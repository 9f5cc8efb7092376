using Encryption.Custom.Cosmos;
using Encryption.Custom.Cosmos.Queries;
using Encryption.Custom.Tests.TestSupport;
using Microsoft.Azure.Cosmos;
using Microsoft.Azure.Cosmos.Linq;
using Newtonsoft.Json;

namespace Encryption.Custom.Tests.Cosmos.Queries;

/// <summary>
/// LINQ through the one check: the SDK translates (its naming honoured), the SQL goes through the parser, guard and
/// operand encryption; the SDK's own ways to run an encryption container's queryable refuse, naming
/// ToEncryptionFeedIterator. No request is sent: translation is local.
/// </summary>
public sealed class LinqQueryTests : IDisposable
{
    private const string Ssn = "078-05-1120";
    private static readonly DataEncryptionKey s_key = TestKeys.Create(TestKeyKind.Protected);
    private readonly CosmosClient _client = new("AccountEndpoint=https://localhost:8081/;AccountKey=" + Convert.ToBase64String(new byte[64]));
    private readonly Container _container;

    public LinqQueryTests()
    {
        _container = _client.GetContainer("db", "people").WithEncryptor(
            new TestEncryptor().Add("dek", s_key),
            new EncryptionContainerOptions { Policy = QueryGuardTests.Policy });
    }

    public void Dispose() => _client.Dispose();

    [Fact]
    public void SdkExecution_OfAnEncryptionContainersQuery_RefusesNamingToEncryptionFeedIterator()
    {
        IQueryable<Person> query = _container.GetItemLinqQueryable<Person>(allowSynchronousQueryExecution: true).Where(p => p.Ssn == Ssn);

        Assert.Contains("ToEncryptionFeedIterator", MessagesOf(Record.Exception(() => query.ToFeedIterator())), StringComparison.Ordinal);
        Assert.Contains("ToEncryptionFeedIterator", MessagesOf(Record.Exception(() => query.ToStreamIterator())), StringComparison.Ordinal);
        Assert.Contains("ToEncryptionFeedIterator", MessagesOf(Record.Exception(() => query.ToList())), StringComparison.Ordinal);
    }

    [Fact]
    public void EveryEqualityForm_ReachesTheOneCheck_AndIsSentEncrypted()
    {
        string ssn = Ssn;
        string[] list = [Ssn, "219-09-9999"];
        IQueryable<Person> people = _container.GetItemLinqQueryable<Person>();
        IQueryable<Person>[] queries =
        [
            people.Where(p => p.Ssn == ssn),
            people.Where(p => p.Ssn != ssn),
            people.Where(p => ssn == p.Ssn),
            people.Where(p => p.Ssn.Equals(ssn)),
            people.Where(p => string.Equals(p.Ssn, ssn)),
            people.Where(p => list.Contains(p.Ssn)),
            people.Where(p => p.Age == 30 && p.Name == "n"),
        ];

        foreach ((IQueryable<Person> query, int index) in queries.Select((q, i) => (q, i)))
        {
            QueryDefinition sent;
            try
            {
                sent = Sent(query);
            }
            catch (Exception e)
            {
                throw new InvalidOperationException($"query {index}", e);
            }

            Assert.DoesNotContain(Ssn, sent.QueryText, StringComparison.Ordinal);
            Assert.DoesNotContain(sent.GetQueryParameters(), p => p.Value is string value && value.Contains(Ssn, StringComparison.Ordinal));
            Assert.Contains("@__enc", sent.QueryText, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void TheSdksNaming_IsWhatTheGuardSees()
    {
        QueryDefinition sent = Sent(_container.GetItemLinqQueryable<Person>().Where(p => p.Name == "n"));

        Assert.Contains("root[\"name\"]", sent.QueryText, StringComparison.Ordinal);
    }

    [Fact]
    public void RefusedForms_AreRefusedBeforeAnythingIsSent()
    {
        IQueryable<Person> people = _container.GetItemLinqQueryable<Person>();

        Assert.Throws<NotSupportedException>(() => _container.ToEncryptionFeedIterator(people.Where(p => p.Ssn.StartsWith("078"))));
        Assert.Throws<NotSupportedException>(() => _container.ToEncryptionFeedIterator(people.OrderBy(p => p.Age)));
        Assert.Throws<NotSupportedException>(() => _container.ToEncryptionFeedIterator(people.Where(p => p.Notes == "x")));
        Assert.Throws<NotSupportedException>(() => _container.ToEncryptionFeedIterator(people.Where(p => p.Age > 18)));
    }

    [Fact]
    public void AValueComparedWithAnEncryptedAndAPlaintextProperty_IsRefusedBeforeSending()
    {
        string v = Ssn;
        IQueryable<Person> people = _container.GetItemLinqQueryable<Person>();

        NotSupportedException refused = Assert.Throws<NotSupportedException>(() => Sent(people.Where(p => p.Ssn == v || p.Name == v)));
        Assert.Contains("'/ssn'", refused.Message, StringComparison.Ordinal);
        Assert.Contains("root[\"name\"] =", refused.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(Ssn, refused.Message, StringComparison.Ordinal);
        Assert.Throws<NotSupportedException>(() => _container.ToEncryptionFeedIterator(people.Where(p => p.Ssn == v || p.Name == v)));

        // Different values, or the same value twice on encrypted paths, are fine.
        Assert.Contains("@__enc", Sent(people.Where(p => p.Ssn == v || p.Name == "other")).QueryText, StringComparison.Ordinal);
        Assert.Contains("@__enc", Sent(people.Where(p => p.Ssn == v || p.Ssn != v)).QueryText, StringComparison.Ordinal);
    }

    [Fact]
    public void AQueryOfAnotherContainer_IsRejected()
    {
        IQueryable<Person> other = _client.GetContainer("db", "people").GetItemLinqQueryable<Person>();

        Assert.Throws<ArgumentException>(() => _container.ToEncryptionFeedIterator(other));
    }

    private static string MessagesOf(Exception? exception)
    {
        var messages = new List<string>();
        for (Exception? current = exception; current is not null; current = current.InnerException)
        {
            messages.Add(current.Message);
        }

        return string.Join(" | ", messages);
    }

    private QueryDefinition Sent<T>(IQueryable<T> query)
    {
        Assert.NotNull(LinqQueryMarker.Unmark(query, out IQueryable<T> unmarked));
        return ((EncryptionContainer)_container).QueryGuard.Check(unmarked.ToQueryDefinition(), fromLinq: true);
    }

    public sealed class Person
    {
        [JsonProperty("id")]
        public string Id { get; set; } = "";

        [JsonProperty("ssn")]
        public string Ssn { get; set; } = "";

        [JsonProperty("age")]
        public int Age { get; set; }

        [JsonProperty("notes")]
        public string Notes { get; set; } = "";

        [JsonProperty("name")]
        public string Name { get; set; } = "";
    }
}

using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>
/// Every query the guard allows returns the rows the same query returns from a plaintext container holding the same
/// documents (issue 33): a wrong rewrite fails here, where a test that only checked that nothing throws passed.
/// System properties and the envelope (<c>_rid</c>, <c>_ei</c>, ...) are left out of the comparison; a query the
/// bundled endpoint cannot run must fail the same way on both containers.
/// </summary>
public sealed class AllowedQueryReferenceTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static readonly ContainerEncryptionPolicy s_policy = new(
        EncryptionFixture.Dek1,
        [
            new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/age") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/notes"),
            new EncryptionPolicyIncludedPath("/card"),
        ]);

    private static readonly string[] s_documents =
    [
        """{"id":"a","pk":"p","ssn":"078-05-1120","age":30,"notes":"n-a","card":{"n":1},"name":"x","other":"078-05-1120","tags":["t1",{"ssn":1,"card":3}],"address":{"ssn":2}}""",
        """{"id":"b","pk":"p","ssn":"219-09-9999","age":40,"notes":"n-b","name":"c.ssn","other":"where c.ssn","tags":[],"address":{"ssn":0}}""",
        """{"id":"c","pk":"p","ssn":"x","age":true,"card":"k","name":"y","tags":["t2"]}""",
        """{"id":"d","pk":"p","age":30,"notes":null,"name":"x"}""",
        """{"id":"e","pk":"p","ssn":null,"age":41,"notes":"n-e","card":[1,2],"ssnx":1,"name":"AgE="}""",
        """{"id":"f","pk":"p","ssn":"AgE=","age":"x","name":"z"}""",
        """{"id":"g","pk":"p","ssn":"078-05-1120","age":31,"name":"078-05-1120","tags":["t1"]}""",
    ];

    private static readonly (string Name, object Value)[] s_parameters =
    [
        ("@ssn", "078-05-1120"), ("@age", 30), ("@a", "219-09-9999"), ("@b", "x"), ("@p", "078-05-1120"), ("@id", "a"), ("@x", "t1"),
    ];

    // Not here: SELECT DISTINCT c.ssn, c._ei FROM c. With these documents it returned "078-05-1120" twice where the
    // plaintext container returns it once (documents a and g hold the same SSN but different envelopes, and the
    // envelope takes part in DISTINCT), so the guard now refuses DISTINCT over a policy value (QueryGuardTests).
    [Theory]
    [InlineData("SELECT * FROM c")]
    [InlineData("SELECT * FROM c WHERE c.name = 'c.ssn' AND c.other = \"where c.ssn\"")]
    [InlineData("SELECT * FROM c WHERE c.ssnx = 1 ORDER BY c.name")]
    [InlineData("SELECT * FROM c WHERE @ssn = c.name")]
    [InlineData("SELECT * FROM c WHERE c.ssn = @ssn")]
    [InlineData("SELECT * FROM c WHERE c.ssn=@ssn AND c.age != @age")]
    [InlineData("SELECT * FROM c WHERE c.ssn <> @ssn")]
    [InlineData("SELECT * FROM c WHERE @ssn = c.ssn")]
    [InlineData("SELECT * FROM c WHERE c.ssn = '078-05-1120' OR c.age = 30 OR c.age = true")]
    [InlineData("SELECT * FROM c WHERE c.ssn IN (@a, @b, 'x', null)")]
    [InlineData("SELECT * FROM c WHERE c.ssn NOT IN (@a, @b)")]
    [InlineData("SELECT * FROM c WHERE c.ssn = null")]
    [InlineData("SELECT * FROM c WHERE NOT (c.ssn = @p) AND (c.age = @a OR c.age = @b)")]
    [InlineData("SELECT * FROM c WHERE ((c.ssn) = @p)")]
    [InlineData("SELECT VALUE root FROM root WHERE (root[\"ssn\"] = \"AgE=\")")]
    [InlineData("SELECT VALUE root FROM root WHERE root[\"ssn\"] IN (\"AgE=\", \"AgF=\")")]
    [InlineData("SELECT c.notes, c.ssn, c[\"card\"], c._ei FROM c WHERE c.id = @id ORDER BY c.id")]
    [InlineData("SELECT c.ssn AS ssn, c._ei AS _ei FROM c")]
    [InlineData("SELECT c.id, c.ssn FROM c")]
    [InlineData("SELECT VALUE {\"ssn\": c.ssn, \"notes\": c.notes, \"_ei\": c._ei} FROM c")]
    [InlineData("SELECT VALUE root FROM root")]
    [InlineData("SELECT * FROM c WHERE IS_DEFINED(c.card) AND NOT IS_NULL(c.notes)")]
    [InlineData("SELECT VALUE COUNT(c.card) FROM c")]
    [InlineData("SELECT VALUE COUNT(1) FROM c.ssn s WHERE s = @p")]
    [InlineData("SELECT c.id FROM c JOIN (SELECT VALUE c.ssn) s WHERE s = @p")]
    [InlineData("SELECT c.id FROM c JOIN t IN c.tags WHERE t.ssn = 1 AND t.card > 2")]
    [InlineData("SELECT * FROM c WHERE c.address.ssn > 1")]
    [InlineData("SELECT * FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = @x) AND c.ssn = @p")]
    [InlineData("SELECT * FROM (SELECT VALUE c FROM c) d WHERE d.ssn = @p")]
    [InlineData("SELECT VALUE c FROM c")]
    [InlineData("SELECT c.ssn = @p AS same FROM c")]
    [InlineData("SELECT * FROM c WHERE c.name = 'x' -- not a policy name")]
    public async Task AllowedQuery_ReturnsTheRowsOfThePlaintextReference(string text)
    {
        (Container encrypted, Container reference) = await ContainersAsync();
        var query = new QueryDefinition(text);
        foreach ((string name, object value) in s_parameters)
        {
            if (text.Contains(name, StringComparison.Ordinal) && !text.Contains(name + "x", StringComparison.Ordinal))
            {
                query = query.WithParameter(name, value);
            }
        }

        // The bundled endpoint does not parse "x NOT IN (...)"; the container sends it as NOT (x IN (...)), which is
        // what the reference runs there (Cosmos DB defines the one as the other).
        QueryDefinition plain = CosmosEndpoint.FromEnvironment().IsBundled && text.Contains(" NOT IN ", StringComparison.Ordinal)
            ? Copy(query, text.Replace("c.ssn NOT IN (@a, @b)", "NOT (c.ssn IN (@a, @b))", StringComparison.Ordinal))
            : query;
        (string[]? expected, int? expectedStatus) = await RowsAsync(reference, plain);
        (string[]? actual, int? actualStatus) = await RowsAsync(encrypted, query);

        Assert.Equal(expectedStatus, actualStatus);
        Assert.Equal(expected, actual);
    }

    private static QueryDefinition Copy(QueryDefinition query, string text)
    {
        var copy = new QueryDefinition(text);
        foreach ((string name, object value) in query.GetQueryParameters())
        {
            copy = copy.WithParameter(name, value);
        }

        return copy;
    }

    private async Task<(Container Encrypted, Container Reference)> ContainersAsync()
    {
        (_, Container encrypted) = await fixture.CreateContainerAsync(options: new EncryptionContainerOptions { Policy = s_policy }, cancellationToken: Ct);
        (Container reference, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        foreach (string document in s_documents)
        {
            JObject item = JObject.Parse(document);
            await encrypted.CreateItemAsync(item, new PartitionKey("p"), cancellationToken: Ct);
            await reference.CreateItemAsync(item, new PartitionKey("p"), cancellationToken: Ct);
        }

        return (encrypted, reference);
    }

    // The rows, each without system properties and the envelope, in a stable order; or the status it failed with.
    private static async Task<(string[]? Rows, int? Status)> RowsAsync(Container container, QueryDefinition query)
    {
        var rows = new List<string>();
        try
        {
            using FeedIterator<JToken> iterator = container.GetItemQueryIterator<JToken>(query);
            while (iterator.HasMoreResults)
            {
                foreach (JToken row in await iterator.ReadNextAsync(Ct))
                {
                    rows.Add(Normalize(row).ToString(Newtonsoft.Json.Formatting.None));
                }
            }
        }
        catch (CosmosException exception)
        {
            return (null, (int)exception.StatusCode);
        }

        return ([.. rows.Order(StringComparer.Ordinal)], null);
    }

    private static JToken Normalize(JToken row)
    {
        if (row is JObject obj)
        {
            foreach (JProperty property in obj.Properties().Where(p => p.Name.StartsWith('_')).ToList())
            {
                property.Remove();
            }
        }

        return row;
    }
}

using Encryption.Custom;
using Microsoft.Azure.Cosmos;

namespace EncryptionSample;

/// <summary>
/// The C# blocks of docs/queries.md "Range and prefix queries": a balance range and a name prefix on encrypted paths,
/// with SQL and LINQ. Program.RunQueriesExampleAsync runs them.
/// </summary>
internal static class RangeQueriesExample
{
    /// <summary>docs/queries.md: the name with prefix tokens, the balance with range tokens.</summary>
    public static Container Customers(Container container, Encryptor encryptor)
    {
        var policy = new ContainerEncryptionPolicy("customers-dek",
        [
            new EncryptionPolicyIncludedPath("/name") { Queries = new PrefixQueryOptions { MinLength = 2, MaxLength = 8, IgnoreCase = true } },
            new EncryptionPolicyIncludedPath("/balance") { Queries = new IntegerRangeQueryOptions(0, 1_000_000) },
            new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/creditCard"),
            new EncryptionPolicyIncludedPath("/address"),
        ]);
        Container ranged = container.WithEncryptor(encryptor, new EncryptionContainerOptions { Policy = policy });
        return ranged;
    }

    /// <summary>docs/queries.md: a range and a prefix in SQL (sent as token matches, re-checked after decryption).</summary>
    public static FeedIterator<Customer> BySql(Container customers)
    {
        var query = new QueryDefinition("SELECT * FROM c WHERE c.balance >= @min AND STARTSWITH(c.name, @prefix)")
            .WithParameter("@min", 15).WithParameter("@prefix", "Gr");
        FeedIterator<Customer> results = customers.GetItemQueryIterator<Customer>(query);
        return results;
    }

    /// <summary>docs/queries.md: a range in LINQ.</summary>
    public static FeedIterator<Customer> ByLinq(Container customers, long low, long high)
    {
        IQueryable<Customer> query = customers.GetItemLinqQueryable<Customer>().Where(c => c.Balance >= low && c.Balance < high);
        FeedIterator<Customer> results = customers.ToEncryptionFeedIterator(query);
        return results;
    }
}

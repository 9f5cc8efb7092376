using Encryption.Custom;
using Microsoft.Azure.Cosmos;

namespace EncryptionSample;

/// <summary>
/// The C# blocks of docs/queries.md: looking a customer up by an encrypted SSN (a deterministic policy path), by SQL
/// parameter, by an <c>IN</c> list and by LINQ, and during a DEK rotation. Program.RunQueriesExampleAsync runs them.
/// </summary>
internal static class QueriesExample
{
    /// <summary>docs/queries.md "Deterministic encryption": the SSN deterministic, the card and address randomized.</summary>
    public static Container Customers(Container container, Encryptor encryptor)
    {
        var policy = new ContainerEncryptionPolicy("customers-dek",
        [
            new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/creditCard"), // randomized
            new EncryptionPolicyIncludedPath("/address"),
        ]);
        Container customers = container.WithEncryptor(encryptor, new EncryptionContainerOptions { Policy = policy });
        return customers;
    }

    /// <summary>docs/queries.md "SQL: AddParameterAsync": the customer with this SSN.</summary>
    public static async Task<FeedIterator<Customer>> BySsnAsync(Container customers)
    {
        QueryDefinition query = await new QueryDefinition("SELECT * FROM c WHERE c.ssn = @ssn")
            .AddParameterAsync("@ssn", "078-05-1120", "/ssn", customers);
        FeedIterator<Customer> results = customers.GetItemQueryIterator<Customer>(query);
        return results;
    }

    /// <summary>docs/queries.md: an <c>IN</c> list, one encrypted parameter per value.</summary>
    public static async Task<FeedIterator<Customer>> BySsnsAsync(Container customers)
    {
        var anyOf = new QueryDefinition("SELECT * FROM c WHERE c.ssn IN (@a, @b)");
        await anyOf.AddParameterAsync("@a", "078-05-1120", "/ssn", customers);
        await anyOf.AddParameterAsync("@b", "219-09-9999", "/ssn", customers);
        return customers.GetItemQueryIterator<Customer>(anyOf);
    }

    /// <summary>docs/queries.md "LINQ": the comparison is rewritten to the SSN's ciphertext.</summary>
    public static FeedIterator<Customer> BySsnLinq(Container customers, string ssn)
    {
        IQueryable<Customer> query = customers.GetItemLinqQueryable<Customer>().Where(c => c.Ssn == ssn);
        FeedIterator<Customer> results = customers.ToEncryptionFeedIterator(query);
        return results;
    }

    /// <summary>docs/queries.md "Rotation": new writes go to the new DEK, reads accept the old one.</summary>
    public static Container DuringRotation(Container container, Encryptor encryptor)
    {
        var rotating = new ContainerEncryptionPolicy("customers-dek-2",
        [
            new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/creditCard"),
            new EncryptionPolicyIncludedPath("/address"),
        ])
        {
            AcceptedDataEncryptionKeyIds = ["customers-dek"], // documents not re-encrypted yet
        };
        Container during = container.WithEncryptor(encryptor, new EncryptionContainerOptions { Policy = rotating });
        return during;
    }

    /// <summary>docs/queries.md "Rotation": the query matches the SSN under either key.</summary>
    public static async Task<FeedIterator<Customer>> BySsnUnderBothKeysAsync(Container during)
    {
        QueryDefinition both = await new QueryDefinition("SELECT * FROM c WHERE c.ssn = @ssn")
            .AddParameterAsync("@ssn", "078-05-1120", "/ssn", during); // one parameter per accepted key, sent as IN
        return during.GetItemQueryIterator<Customer>(both);
    }
}

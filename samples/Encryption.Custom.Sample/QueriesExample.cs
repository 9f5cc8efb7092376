using Encryption.Custom;
using Microsoft.Azure.Cosmos;

namespace EncryptionSample;

/// <summary>
/// The C# blocks of docs/queries.md: looking a customer up by an encrypted SSN (a deterministic policy path), with
/// WithParameter, by an <c>IN</c> list and by LINQ, and during a DEK rotation. Program.RunQueriesExampleAsync runs them.
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

    /// <summary>docs/queries.md "SQL: WithParameter and literals": the customer with this SSN (the library encrypts the parameter).</summary>
    public static FeedIterator<Customer> BySsn(Container customers)
    {
        var query = new QueryDefinition("SELECT * FROM c WHERE c.ssn = @ssn").WithParameter("@ssn", "078-05-1120");
        FeedIterator<Customer> results = customers.GetItemQueryIterator<Customer>(query);
        return results;
    }

    /// <summary>docs/queries.md: an <c>IN</c> list with a parameter and a literal, both encrypted by the library.</summary>
    public static FeedIterator<Customer> BySsns(Container customers)
    {
        var anyOf = new QueryDefinition("SELECT * FROM c WHERE c.ssn IN (@a, '219-09-9999')").WithParameter("@a", "078-05-1120");
        return customers.GetItemQueryIterator<Customer>(anyOf);
    }

    /// <summary>docs/queries.md: the explicit form, the ciphertext in the query definition itself.</summary>
    public static async Task<FeedIterator<Customer>> BySsnExplicitAsync(Container customers)
    {
        QueryDefinition explicitForm = await new QueryDefinition("SELECT * FROM c WHERE c.ssn = @ssn")
            .AddParameterAsync("@ssn", "078-05-1120", "/ssn", customers);
        return customers.GetItemQueryIterator<Customer>(explicitForm);
    }

    /// <summary>docs/queries.md "LINQ": the SDK's translation goes through the same check; the SSN is encrypted.</summary>
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
    public static FeedIterator<Customer> BySsnUnderBothKeys(Container during)
    {
        var both = new QueryDefinition("SELECT * FROM c WHERE c.ssn = @ssn").WithParameter("@ssn", "078-05-1120");
        return during.GetItemQueryIterator<Customer>(both);
    }
}

using Encryption.Custom.Cosmos.Queries;

namespace Encryption.Custom.Tests.Cosmos.Queries;

/// <summary>
/// On a committing container (format 101 commitment) a returned row is checked against the document's commitment
/// to the cells it holds and their order, which a projection can break (leaving a property out, or listing them in
/// another order than the document stores them), so a projection of an encrypted property is refused before sending,
/// naming it (issue 32), instead of failing on decryption with an error that reads like tampering.
/// </summary>
public sealed class CommittedProjectionTests
{
    private static readonly QueryPolicyPaths s_committed = new(new ContainerEncryptionPolicy(
        "dek",
        [
            new EncryptionPolicyIncludedPath("/address/city") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/address/zip"),
            new EncryptionPolicyIncludedPath("/ssn"),
        ])
    { Bind = true, Commit = true });

    [Theory]
    [InlineData("SELECT c.id, c.pk, c.address, c._ei, c._ex FROM c", "'address'")]
    [InlineData("SELECT c.id, c.pk, c.ssn, c._ei, c._ex FROM c", "'ssn'")]
    [InlineData("SELECT VALUE {\"id\": c.id, \"pk\": c.pk, \"ssn\": c.ssn, \"_ei\": c._ei, \"_ex\": c._ex} FROM c", "'ssn'")]
    [InlineData("SELECT c.id, c.pk, c.address, c.ssn, c._ei, c._ex FROM c", "'ssn', 'address'")]
    [InlineData("SELECT c.id, c.pk, c.ssn, c.address, c._ei, c._ex FROM c", "'ssn', 'address'")]
    public void AProjectionOfAnEncryptedProperty_IsRefusedNamingIt(string query, string missing)
    {
        NotSupportedException refused = Assert.Throws<NotSupportedException>(() => QueryGuard.Analyze(query, s_committed));

        Assert.Contains(missing, refused.Message, StringComparison.Ordinal);
        Assert.Contains("Commit", refused.Message, StringComparison.Ordinal);
        Assert.Contains("SELECT *", refused.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("SELECT * FROM c")]
    [InlineData("SELECT VALUE c FROM c")]
    [InlineData("SELECT c.id, c.name FROM c")]
    public void TheWholeDocument_OrNoEncryptedProperty_AreAllowed(string query) =>
        QueryGuard.Analyze(query, s_committed);
}

using Encryption.Custom.Cosmos.Queries;

namespace Encryption.Custom.Tests.Cosmos.Queries;

/// <summary>
/// On a committing container (format 101 commitment) a returned row is checked against the document's commitment
/// to the cells it holds, so a projection that leaves out an encrypted property is refused before sending, naming
/// what to add (issue 32), instead of failing on decryption with an error that reads like tampering.
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
    [InlineData("SELECT c.id, c.pk, c.address, c._ei, c._ex FROM c", "'ssn'")]
    [InlineData("SELECT c.id, c.pk, c.ssn, c._ei, c._ex FROM c", "'address'")]
    [InlineData("SELECT VALUE {\"id\": c.id, \"pk\": c.pk, \"ssn\": c.ssn, \"_ei\": c._ei, \"_ex\": c._ex} FROM c", "'address'")]
    public void AProjectionLeavingOutAnEncryptedProperty_IsRefusedNamingIt(string query, string missing)
    {
        NotSupportedException refused = Assert.Throws<NotSupportedException>(() => QueryGuard.Analyze(query, s_committed));

        Assert.Contains(missing, refused.Message, StringComparison.Ordinal);
        Assert.Contains("Commit", refused.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("SELECT c.id, c.pk, c.address, c.ssn, c._ei, c._ex FROM c")]
    [InlineData("SELECT * FROM c")]
    [InlineData("SELECT c.id, c.name FROM c")]
    public void EveryEncryptedProperty_TheWholeDocument_OrNone_AreAllowed(string query) =>
        QueryGuard.Analyze(query, s_committed);
}

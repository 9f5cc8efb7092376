using Encryption.Custom.Cosmos.Queries;

namespace Encryption.Custom.Tests.Cosmos.Queries;

/// <summary>
/// A parameter compared with an encrypted path and used anywhere else is refused before sending, naming the
/// parameter and both uses (issue 32): the other use would send the value in plaintext.
/// </summary>
public sealed class MixedOperandUseTests
{
    private static readonly QueryPolicyPaths s_paths = new(QueryGuardTests.Policy);

    [Theory]
    [InlineData("SELECT * FROM c WHERE c.ssn = @p OR c.name = @p", "c.name ='")]
    [InlineData("SELECT * FROM c WHERE c.name = @p OR c.ssn = @p", "WHERE c.name ='")]
    [InlineData("SELECT @p AS x FROM c WHERE c.ssn = @p", "after 'SELECT'")]
    [InlineData("SELECT * FROM c WHERE c.ssn IN (@a, @p) AND CONTAINS(c.name, @p)", "c.name,'")]
    [InlineData("SELECT * FROM c WHERE c.ssn != @p AND c.ssnCopy = @p", "c.ssnCopy ='")]
    public void AParameterComparedWithAnEncryptedPath_AndUsedElsewhere_IsRefused(string text, string otherUse)
    {
        NotSupportedException refused = Assert.Throws<NotSupportedException>(() => QueryGuard.Analyze(text, s_paths));

        Assert.Contains("The parameter @p", refused.Message, StringComparison.Ordinal);
        Assert.Contains("'/ssn'", refused.Message, StringComparison.Ordinal);
        Assert.Contains(otherUse, refused.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("SELECT * FROM c WHERE c.ssn = @p OR c.ssn != @p")]
    [InlineData("SELECT * FROM c WHERE c.ssn = @p OR c.age = @p")] // both encrypted (each for its own path)
    [InlineData("SELECT * FROM c WHERE c.ssn = @p OR c.name = @q")]
    [InlineData("SELECT * FROM c WHERE c.ssn = '1' OR c.name = '1'")] // SQL literals: the text shows them as written
    public void EncryptedUsesOnly_OrDistinctValues_AreAllowed(string text) =>
        Assert.NotEmpty(QueryGuard.Analyze(text, s_paths));
}

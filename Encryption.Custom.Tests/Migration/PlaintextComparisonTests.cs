using System.Text;
using Encryption.Custom.Migration.Copy;

namespace Encryption.Custom.Tests.Migration;

/// <summary>
/// How the copy decides that a target document holds its source's data (<see cref="PlaintextComparison"/>): as JSON
/// values, whatever the member order, number spelling or system properties; any changed, missing or extra application
/// value makes them differ.
/// </summary>
public sealed class PlaintextComparisonTests
{
    private static bool Same(string source, string target) => PlaintextComparison.SameDocument(Encoding.UTF8.GetBytes(source), Encoding.UTF8.GetBytes(target));

    [Theory]
    [InlineData("""{"id":"a","n":1,"s":"x"}""", """{"s":"x","id":"a","n":1}""")]
    [InlineData("""{"id":"a","n":1.50,"big":1e3}""", """{"id":"a","n":1.5,"big":1000}""")]
    [InlineData("""{"id":"a","_rid":"r","_ts":1,"_etag":"\"e\"","_lsn":7,"_self":"s","_attachments":"t"}""", """{"id":"a","_ts":2}""")]
    [InlineData("""{"id":"a","o":{"y":[1,{"z":null}],"x":true}}""", """{"id":"a","o":{"x":true,"y":[1.0,{"z":null}]}}""")]
    public void SameData_IsSame(string source, string target) => Assert.True(Same(source, target));

    [Theory]
    [InlineData("""{"id":"a","n":1}""", """{"id":"a","n":2}""")]
    [InlineData("""{"id":"a","n":1}""", """{"id":"a","n":"1"}""")]
    [InlineData("""{"id":"a","n":1}""", """{"id":"a"}""")]
    [InlineData("""{"id":"a"}""", """{"id":"a","n":null}""")]
    [InlineData("""{"id":"a","l":[1,2]}""", """{"id":"a","l":[2,1]}""")]
    [InlineData("""{"id":"a","o":{"_ts":1}}""", """{"id":"a","o":{}}""")] // system names count only at the top level
    [InlineData("""{"id":"a","s":"x"}""", """{"id":"a","s":"X"}""")]
    [InlineData("""{"id":"a","b":true}""", """{"id":"a","b":false}""")]
    public void DifferentData_IsDifferent(string source, string target) => Assert.False(Same(source, target));

    [Theory]
    [InlineData("[1]")]
    [InlineData("""{"id":"secret-value""")]
    public void NotAnObject_IsRefused_WithoutQuotingIt(string bad)
    {
        EncryptionException refused = Assert.Throws<EncryptionException>(() => Same(bad, """{"id":"a"}"""));
        Assert.Equal(EncryptionErrorKind.MalformedDocument, refused.Kind);
        Assert.DoesNotContain("secret", refused.Message, StringComparison.Ordinal);
    }
}

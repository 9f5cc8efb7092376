using System.Text;
using Encryption.Custom.Migration;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Migration;

/// <summary>
/// Where a copy writes a document: its id and partition key read from the plaintext by the target container's
/// partition key paths (<see cref="StoredDocument.ReadKey"/>), single, nested or hierarchical, each value type kept.
/// </summary>
public sealed class StoredDocumentKeyTests
{
    private static (string? Id, PartitionKey Key) Read(string json, params string[] paths) => StoredDocument.ReadKey(Encoding.UTF8.GetBytes(json), paths);

    [Fact]
    public void SinglePath_EachValueType()
    {
        Assert.Equal(new PartitionKey("t1"), Read("""{"id":"a","pk":"t1"}""", "/pk").Key);
        Assert.Equal(new PartitionKey(5), Read("""{"id":"a","pk":5}""", "/pk").Key);
        Assert.Equal(new PartitionKey(true), Read("""{"id":"a","pk":true}""", "/pk").Key);
        Assert.Equal(PartitionKey.Null, Read("""{"id":"a","pk":null}""", "/pk").Key);
        Assert.Equal(PartitionKey.None, Read("""{"id":"a"}""", "/pk").Key);
        Assert.Equal(new PartitionKey("x"), Read("""{"id":"a","address":{"city":"x"}}""", "/address/city").Key);
    }

    [Fact]
    public void HierarchicalPaths_BuildTheFullKey()
    {
        (string? id, PartitionKey key) = Read("""{"id":"a","tenant":"t","user":{"id":7},"region":"eu"}""", "/tenant", "/user/id", "/region");

        Assert.Equal("a", id);
        Assert.Equal(new PartitionKeyBuilder().Add("t").Add(7).Add("eu").Build(), key);
    }

    [Fact]
    public void NoStringId_HasNoId()
    {
        Assert.Null(Read("""{"id":5,"pk":"t"}""", "/pk").Id);
        Assert.Null(Read("""[1]""", "/pk").Id);
    }
}

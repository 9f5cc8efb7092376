using System.Text;
using Encryption.Custom.Cosmos.Feeds;

namespace Encryption.Custom.Tests.Cosmos.Feeds;

public sealed class FeedPageSplitterTests
{
    [Fact]
    public void Split_Page_ReturnsEachElementVerbatim()
    {
        string page = """{"_rid":"r","Documents":[{"id":"a","x":[1,{"y":"]"}]} , "text",3,null,{"id":"b\"}"}],"_count":5}""";

        List<byte[]> documents = FeedPageSplitter.Split(Encoding.UTF8.GetBytes(page));

        Assert.Equal(["""{"id":"a","x":[1,{"y":"]"}]}""", "\"text\"", "3", "null", """{"id":"b\"}"}"""], documents.Select(d => Encoding.UTF8.GetString(d)));
    }

    [Fact]
    public void Split_EmptyDocuments_ReturnsNothing() =>
        Assert.Empty(FeedPageSplitter.Split("""{"Documents":[],"_count":0}"""u8));

    [Theory]
    [InlineData("""{"_rid":"r"}""")]
    [InlineData("""{"Documents":{}}""")]
    [InlineData("""[]""")]
    [InlineData("""{"Documents":[{"secret-looking""")]
    public void Split_NotAPage_ThrowsMalformedDocument(string page)
    {
        EncryptionException error = Assert.Throws<EncryptionException>(() => FeedPageSplitter.Split(Encoding.UTF8.GetBytes(page)));

        Assert.Equal(EncryptionErrorKind.MalformedDocument, error.Kind);
        Assert.DoesNotContain("secret-looking", error.Message, StringComparison.Ordinal);
    }
}

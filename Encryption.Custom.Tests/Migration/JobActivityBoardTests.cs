using System.Text.Json;
using Encryption.Custom.Migration;

namespace Encryption.Custom.Tests.Migration;

/// <summary>An activity record is read only when every member is there with its type; otherwise it is refused by name.</summary>
public sealed class JobActivityBoardTests
{
    private const string Id = "encryption-migration-activity-0123";

    private static InstanceActivity Parse(string json)
    {
        using JsonDocument document = JsonDocument.Parse(json);
        return JobActivityBoard.Parse(document.RootElement);
    }

    [Fact]
    public void AWellFormedRecord_IsRead()
    {
        InstanceActivity activity = Parse($$"""{"id":"{{Id}}","instance":"a","work":12,"reports":3,"intervalSeconds":1.5,"_ts":1700000000}""");

        Assert.Equal(new InstanceActivity("a", 12, 3, 1700000000, 1.5), activity);
    }

    [Theory]
    [InlineData("""{"id":"ID","work":12,"reports":3,"intervalSeconds":1,"_ts":1}""")] // no instance
    [InlineData("""{"id":"ID","instance":"a","work":"12","reports":3,"intervalSeconds":1,"_ts":1}""")] // work a string
    [InlineData("""{"id":"ID","instance":"a","work":12,"reports":3.5,"intervalSeconds":1,"_ts":1}""")] // reports not whole
    [InlineData("""{"id":"ID","instance":"a","work":12,"reports":3,"_ts":1}""")] // no interval
    [InlineData("""{"id":"ID","instance":7,"work":12,"reports":3,"intervalSeconds":1,"_ts":1}""")] // instance a number
    [InlineData("""{"id":"ID","instance":"a","work":12,"reports":3,"intervalSeconds":1}""")] // no _ts
    public void ARecordThatCannotBeRead_IsRefused_NamingIt(string json)
    {
        InvalidOperationException refused = Assert.Throws<InvalidOperationException>(() => Parse(json.Replace("ID", Id, StringComparison.Ordinal)));

        Assert.Contains(JobActivityBoard.Kind, refused.Message, StringComparison.Ordinal);
        Assert.Contains(Id, refused.Message, StringComparison.Ordinal);
        Assert.Contains("cannot read", refused.Message, StringComparison.Ordinal);
        Assert.Contains("nothing was swept", refused.Message, StringComparison.Ordinal);
    }
}

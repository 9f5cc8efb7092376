using Encryption.Custom.Cosmos.Patch;
using Encryption.Custom.Cosmos.Serialization;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Cosmos.Patch;

/// <summary>
/// <see cref="PatchApplier"/>, the in-process patch of the conditional replace, with the semantics Azure Cosmos DB
/// documents per operation: what it changes, and what it refuses (answered as the service answers a bad patch, 400,
/// never naming a value).
/// </summary>
public sealed class PatchApplierTests
{
    private const string Document = """{"id":"a","n":1,"f":1.5,"s":"SECRET-s","o":{"x":1},"arr":[10,20,30]}""";
    private static readonly CosmosSerializer s_serializer = new NewtonsoftItemSerializer(null);

    public static TheoryData<string, string> Applied => new()
    {
        { "add /o/y 2", """{"x":1,"y":2}""" },
        { "add /arr/1 15", "[10,15,20,30]" },
        { "add /arr/- 40", "[10,20,30,40]" },
        { "add /arr/3 40", "[10,20,30,40]" },
        { "set /arr/1 21", "[10,21,30]" },
        { "set /o/x 2", """{"x":2}""" },
        { "replace /arr/0 11", "[11,20,30]" },
        { "remove /arr/1", "[10,30]" },
        { "increment /n 2", "3" },
        { "increment /f 1", "2.5" },
        { "increment /new 5", "5" },
        { "move /o/x /o/z", """{"z":1}""" },
    };

    [Theory]
    [MemberData(nameof(Applied))]
    public void Operation_IsApplied(string operation, string expected)
    {
        JObject document = JObject.Parse(Document);
        PatchOperation patch = Parse(operation);

        Assert.Null(PatchApplier.TryApply(document, [patch], s_serializer, 64));

        string target = patch.Path.Split('/')[1];
        Assert.True(JToken.DeepEquals(JToken.Parse(expected), document[target]), document.ToString());
    }

    [Theory]
    [InlineData("replace /missing 1")]
    [InlineData("replace /arr/3 1")]
    [InlineData("remove /missing")]
    [InlineData("remove /arr/9")]
    [InlineData("add /arr/5 1")]
    [InlineData("set /nowhere/x 1")]
    [InlineData("increment /s 1")]
    [InlineData("move /missing /y")]
    [InlineData("move /o /o/inner")]
    public void ImpossibleOperation_IsAnsweredWithoutApplyingOrNamingAValue(string operation)
    {
        JObject document = JObject.Parse(Document);

        string? error = PatchApplier.TryApply(document, [Parse(operation)], s_serializer, 64);

        Assert.NotNull(error);
        Assert.DoesNotContain("SECRET", error, StringComparison.Ordinal);
    }

    private static PatchOperation Parse(string text)
    {
        string[] parts = text.Split(' ');
        return parts[0] switch
        {
            "add" => PatchOperation.Add(parts[1], JToken.Parse(parts[2])),
            "set" => PatchOperation.Set(parts[1], JToken.Parse(parts[2])),
            "replace" => PatchOperation.Replace(parts[1], JToken.Parse(parts[2])),
            "remove" => PatchOperation.Remove(parts[1]),
            "increment" when parts[2].Contains('.', StringComparison.Ordinal) => PatchOperation.Increment(parts[1], double.Parse(parts[2], System.Globalization.CultureInfo.InvariantCulture)),
            "increment" => PatchOperation.Increment(parts[1], long.Parse(parts[2], System.Globalization.CultureInfo.InvariantCulture)),
            _ => PatchOperation.Move(parts[1], parts[2]),
        };
    }
}

using System.Text.Json.Nodes;

namespace Encryption.Custom.Tool.Tests.TestSupport;

/// <summary>Compares JSON by value (the Newtonsoft processor re-serializes; the stream processor copies bytes).</summary>
internal static class JsonAssert
{
    public static void Equivalent(string expected, string actual)
    {
        JsonNode? expectedNode = JsonNode.Parse(expected);
        JsonNode? actualNode = JsonNode.Parse(actual);
        Assert.True(JsonNode.DeepEquals(expectedNode, actualNode), $"Expected {expected}{Environment.NewLine}Actual   {actual}");
    }
}

namespace Encryption.Custom.Emulator.Tests.Infrastructure;

/// <summary>A container's resource id (its <c>_rid</c>), which the SDK keeps internal, from its self link.</summary>
public static class ContainerResourceIds
{
    /// <summary>The segment after <c>colls</c> in <c>dbs/{db rid}/colls/{container rid}/</c>.</summary>
    public static string Of(ContainerProperties properties)
    {
        string[] segments = properties.SelfLink.Split('/', StringSplitOptions.RemoveEmptyEntries);
        int colls = Array.IndexOf(segments, "colls");
        Assert.True(colls >= 0 && colls + 1 < segments.Length, $"Not a container self link: '{properties.SelfLink}'.");
        return segments[colls + 1];
    }
}

using System.Reflection;
using Encryption.Custom.Cosmos.Patch;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Patch;

public sealed class PatchRequestOptionsCopierTests
{
    [Fact]
    public void PatchItemProperties_ListEverySettableProperty()
    {
        // Fails when an SDK upgrade adds an option the copier would silently drop.
        Assert.Equal(SettableProperties(typeof(PatchItemRequestOptions)), PatchRequestOptionsCopier.PatchItemProperties.Order(StringComparer.Ordinal));
        Assert.Equal(SettableProperties(typeof(TransactionalBatchPatchItemRequestOptions)), PatchRequestOptionsCopier.BatchPatchProperties.Order(StringComparer.Ordinal));
    }

    [Fact]
    public void Copy_CopiesValuesSetsTheEtagAndLeavesTheSourceAlone()
    {
        var source = new PatchItemRequestOptions
        {
            FilterPredicate = "FROM c WHERE c.a = 1",
            SessionToken = "session",
            EnableContentResponseOnWrite = false,
            IfNoneMatchEtag = "none",
            PriorityLevel = PriorityLevel.Low,
            Properties = new Dictionary<string, object> { ["k"] = "v" },
        };

        PatchItemRequestOptions copy = PatchRequestOptionsCopier.Copy(source, "\"etag\"");

        Assert.NotSame(source, copy);
        Assert.Equal("\"etag\"", copy.IfMatchEtag);
        Assert.Null(source.IfMatchEtag);
        Assert.Equal(source.FilterPredicate, copy.FilterPredicate);
        Assert.Equal(source.SessionToken, copy.SessionToken);
        Assert.False(copy.EnableContentResponseOnWrite);
        Assert.Equal("none", copy.IfNoneMatchEtag);
        Assert.Equal(PriorityLevel.Low, copy.PriorityLevel);
        Assert.Same(source.Properties, copy.Properties);
    }

    [Fact]
    public void CopyBatch_KeepsCallerEtagWhenNoneIsGiven()
    {
        var source = new TransactionalBatchPatchItemRequestOptions { IfMatchEtag = "\"caller\"", FilterPredicate = "FROM c WHERE true" };

        TransactionalBatchPatchItemRequestOptions copy = PatchRequestOptionsCopier.Copy(source, null);

        Assert.Equal("\"caller\"", copy.IfMatchEtag);
        Assert.Equal(source.FilterPredicate, copy.FilterPredicate);
    }

    private static List<string> SettableProperties(Type type) =>
        [.. type.GetProperties(BindingFlags.Public | BindingFlags.Instance).Where(p => p.SetMethod?.IsPublic == true).Select(p => p.Name).Distinct().Order(StringComparer.Ordinal)];
}

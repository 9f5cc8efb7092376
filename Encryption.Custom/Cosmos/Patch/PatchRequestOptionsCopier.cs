using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Patch;

/// <summary>
/// Copies patch options so that an ETag condition can be added without touching the caller's instance (which
/// may be shared by concurrent requests). The SDK's own copy is internal; a unit test checks that every settable
/// property is listed here, so an SDK upgrade that adds one fails loudly instead of dropping it.
/// </summary>
internal static class PatchRequestOptionsCopier
{
    // Declared first: the lists below spread it during static initialization.
    private static readonly string[] s_requestOptionsProperties =
    [
        nameof(RequestOptions.IfMatchEtag), nameof(RequestOptions.IfNoneMatchEtag), nameof(RequestOptions.Properties),
        nameof(RequestOptions.AddRequestHeaders), nameof(RequestOptions.PriorityLevel), nameof(RequestOptions.CosmosThresholdOptions),
        nameof(RequestOptions.ExcludeRegions), nameof(RequestOptions.AvailabilityStrategy), nameof(RequestOptions.ThroughputBucket),
    ];

    public static PatchItemRequestOptions Copy(PatchItemRequestOptions? source, string ifMatchEtag)
    {
        var copy = new PatchItemRequestOptions();
        if (source is not null)
        {
            CopyRequestOptions(source, copy);
            copy.PreTriggers = source.PreTriggers;
            copy.PostTriggers = source.PostTriggers;
            copy.IndexingDirective = source.IndexingDirective;
            copy.SessionToken = source.SessionToken;
            copy.ConsistencyLevel = source.ConsistencyLevel;
            copy.ReadConsistencyStrategy = source.ReadConsistencyStrategy;
            copy.EnableContentResponseOnWrite = source.EnableContentResponseOnWrite;
            copy.DedicatedGatewayRequestOptions = source.DedicatedGatewayRequestOptions;
            copy.FilterPredicate = source.FilterPredicate;
        }

        copy.IfMatchEtag = ifMatchEtag;
        return copy;
    }

    public static TransactionalBatchPatchItemRequestOptions Copy(TransactionalBatchPatchItemRequestOptions? source, string? ifMatchEtag)
    {
        var copy = new TransactionalBatchPatchItemRequestOptions();
        if (source is not null)
        {
            CopyRequestOptions(source, copy);
            copy.IndexingDirective = source.IndexingDirective;
            copy.EnableContentResponseOnWrite = source.EnableContentResponseOnWrite;
            copy.FilterPredicate = source.FilterPredicate;
        }

        if (ifMatchEtag is not null)
        {
            copy.IfMatchEtag = ifMatchEtag;
        }

        return copy;
    }

    /// <summary>The names of the properties <see cref="Copy(PatchItemRequestOptions, string)"/> copies (for the test).</summary>
    internal static readonly string[] PatchItemProperties =
    [
        .. s_requestOptionsProperties,
        nameof(PatchItemRequestOptions.PreTriggers), nameof(PatchItemRequestOptions.PostTriggers),
        nameof(PatchItemRequestOptions.IndexingDirective), nameof(PatchItemRequestOptions.SessionToken),
        nameof(PatchItemRequestOptions.ConsistencyLevel), nameof(PatchItemRequestOptions.ReadConsistencyStrategy),
        nameof(PatchItemRequestOptions.EnableContentResponseOnWrite), nameof(PatchItemRequestOptions.DedicatedGatewayRequestOptions),
        nameof(PatchItemRequestOptions.FilterPredicate),
    ];

    /// <summary>The names of the properties the batch <c>Copy</c> copies (for the test).</summary>
    internal static readonly string[] BatchPatchProperties =
    [
        .. s_requestOptionsProperties,
        nameof(TransactionalBatchPatchItemRequestOptions.IndexingDirective),
        nameof(TransactionalBatchPatchItemRequestOptions.EnableContentResponseOnWrite),
        nameof(TransactionalBatchPatchItemRequestOptions.FilterPredicate),
    ];

    private static void CopyRequestOptions(RequestOptions source, RequestOptions copy)
    {
        copy.IfMatchEtag = source.IfMatchEtag;
        copy.IfNoneMatchEtag = source.IfNoneMatchEtag;
        copy.Properties = source.Properties;
        copy.AddRequestHeaders = source.AddRequestHeaders;
        copy.PriorityLevel = source.PriorityLevel;
        copy.CosmosThresholdOptions = source.CosmosThresholdOptions;
        copy.ExcludeRegions = source.ExcludeRegions;
        copy.AvailabilityStrategy = source.AvailabilityStrategy;
        copy.ThroughputBucket = source.ThroughputBucket;
    }
}

using System.Net;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Cosmos.Patch;

/// <summary>The pieces of the conditional replace that stands in for a patch: its options and its answers.</summary>
internal static class PatchAsReplace
{
    // Set by the service on every document; a replace body need not carry them.
    private static readonly string[] s_systemProperties = ["_rid", "_self", "_etag", "_attachments", "_ts", "_lsn"];

    /// <summary>The replace's options: the patch's own that a replace has, and <c>IfMatchEtag</c> = the ETag read.</summary>
    public static ItemRequestOptions ReplaceOptions(PatchItemRequestOptions? patch, string etag) => new()
    {
        IfMatchEtag = etag,
        PreTriggers = patch?.PreTriggers,
        PostTriggers = patch?.PostTriggers,
        IndexingDirective = patch?.IndexingDirective,
        SessionToken = patch?.SessionToken,
        ConsistencyLevel = patch?.ConsistencyLevel,
        EnableContentResponseOnWrite = patch?.EnableContentResponseOnWrite,
        Properties = patch?.Properties,
        AddRequestHeaders = patch?.AddRequestHeaders,
        PriorityLevel = patch?.PriorityLevel,
        CosmosThresholdOptions = patch?.CosmosThresholdOptions,
        ExcludeRegions = patch?.ExcludeRegions,
        AvailabilityStrategy = patch?.AvailabilityStrategy,
        ThroughputBucket = patch?.ThroughputBucket,
    };

    /// <summary>Drops the properties the service sets from a document about to be replaced.</summary>
    public static void RemoveSystemProperties(JObject document)
    {
        foreach (string name in s_systemProperties)
        {
            document.Remove(name);
        }
    }

    /// <summary>The answer to operations that cannot be applied to the document, as the service gives it to a patch.</summary>
    public static ResponseMessage BadRequest(string error) => new(HttpStatusCode.BadRequest, requestMessage: null, errorMessage: error);

    /// <summary>
    /// The answer when every attempt met a document changed since it was read: the last 412, with a message that
    /// says so (its headers kept).
    /// </summary>
    public static ResponseMessage StillConflicting(ResponseMessage last, int attempts)
    {
        var answer = new ResponseMessage(
            HttpStatusCode.PreconditionFailed,
            requestMessage: null,
            errorMessage: $"The patch was applied as a conditional replace (read, apply, replace if unchanged), and the document changed between the read and the replace on each of {attempts} attempts: nothing was written. Retry later, or raise EncryptionContainerOptions.PatchMaxAttempts.");
        foreach (string name in last.Headers.AllKeys())
        {
            answer.Headers[name] = last.Headers[name];
        }

        last.Dispose();
        return answer;
    }
}

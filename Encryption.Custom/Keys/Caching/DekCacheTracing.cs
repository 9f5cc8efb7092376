using System.Diagnostics;
using Encryption.Custom.Diagnostics;

namespace Encryption.Custom.Keys.Caching;

/// <summary>
/// Where a key load sits in a trace. Loads run on the thread pool without the caller's execution context, so the
/// trace is handed over explicitly: a load (a cache miss) becomes a child of the request that caused it, so that the
/// DEK read and the key-wrap provider's call appear under that request rather than as root traces; a background
/// refresh, which the request does not wait for, is a root linked to the request that noticed the expiry.
/// </summary>
internal static class DekCacheTracing
{
    /// <summary>The activity name: <c>Encryption.Custom.LoadDataEncryptionKey</c>.</summary>
    public const string LoadActivityName = DiagnosticNames.ActivityPrefix + "LoadDataEncryptionKey";

    /// <summary>
    /// Makes <paramref name="trigger"/> the current activity of a load (not of a refresh), so that activities of the
    /// Cosmos SDK and HTTP clients nest under it, and starts the library's own load activity when sampled.
    /// </summary>
    public static Activity? StartLoad(string dataEncryptionKeyId, Activity? trigger, bool background)
    {
        if (!background && trigger is not null)
        {
            Activity.Current = trigger;
        }

        if (!EncryptionTelemetry.Source.HasListeners())
        {
            return null;
        }

        ActivityLink[]? links = background && trigger is not null ? [new ActivityLink(trigger.Context)] : null;
        Activity? activity = EncryptionTelemetry.Source.StartActivity(
            LoadActivityName, ActivityKind.Internal, parentContext: default, tags: null, links: links);
        activity?.SetTag(DiagnosticNames.DataEncryptionKeyIdTag, dataEncryptionKeyId);
        return activity;
    }

    /// <summary>Marks the load as failed with a secret-free error kind (never the message).</summary>
    public static void Fail(Activity? activity, Exception exception)
    {
        if (activity is null)
        {
            return;
        }

        string errorType = ErrorTypes.Classify(exception);
        activity.SetTag(DiagnosticNames.ErrorTypeTag, errorType);
        activity.SetStatus(ActivityStatusCode.Error, errorType);
    }
}

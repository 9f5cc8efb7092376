using Encryption.Custom.Cosmos.Lookups;
using Encryption.Custom.Cosmos.ChangeFeed;
using Encryption.Custom.Cosmos.Feeds;
using Encryption.Custom.Cosmos.Streams;
using Encryption.Custom.Diagnostics;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos;

/// <summary>Change feed iterators and processors: every page, and every batch a handler receives, is decrypted.</summary>
internal sealed partial class EncryptionContainer
{
    public override FeedIterator<T> GetChangeFeedIterator<T>(ChangeFeedStartFrom changeFeedStartFrom, ChangeFeedMode changeFeedMode, ChangeFeedRequestOptions? changeFeedRequestOptions = null)
    {
        RejectAllVersionsAndDeletes(changeFeedMode);
        return new EncryptionFeedIterator<T>(Wrap(_inner.GetChangeFeedStreamIterator(ChangeFeedStarts.Encrypt(changeFeedStartFrom, Lookups), changeFeedMode, changeFeedRequestOptions), FeedKind.ChangeFeed));
    }

    public override FeedIterator GetChangeFeedStreamIterator(ChangeFeedStartFrom changeFeedStartFrom, ChangeFeedMode changeFeedMode, ChangeFeedRequestOptions? changeFeedRequestOptions = null)
    {
        RejectAllVersionsAndDeletes(changeFeedMode);
        return Wrap(_inner.GetChangeFeedStreamIterator(ChangeFeedStarts.Encrypt(changeFeedStartFrom, Lookups), changeFeedMode, changeFeedRequestOptions), FeedKind.ChangeFeed);
    }

    public override ChangeFeedProcessorBuilder GetChangeFeedProcessorBuilder<T>(string processorName, ChangesHandler<T> onChangesDelegate)
    {
        ArgumentNullException.ThrowIfNull(onChangesDelegate);
        return _inner.GetChangeFeedProcessorBuilder(processorName, async (ChangeFeedProcessorContext context, Stream changes, CancellationToken cancellationToken) =>
        {
            using OperationTelemetry? telemetry = OperationTelemetry.Start(OperationNames.ChangeFeedProcessorChanges, Id);
            try
            {
                IReadOnlyCollection<T> items = await ChangeFeedPages.ToItemsAsync<T>(this, changes, telemetry, cancellationToken).ConfigureAwait(false);
                await onChangesDelegate(items, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception exception) when (OperationNames.RecordFailure(telemetry, exception))
            {
                throw;
            }
        });
    }

    public override ChangeFeedProcessorBuilder GetChangeFeedProcessorBuilder<T>(string processorName, ChangeFeedHandler<T> onChangesDelegate)
    {
        ArgumentNullException.ThrowIfNull(onChangesDelegate);
        return _inner.GetChangeFeedProcessorBuilder(processorName, async (ChangeFeedProcessorContext context, Stream changes, CancellationToken cancellationToken) =>
        {
            using OperationTelemetry? telemetry = OperationTelemetry.Start(OperationNames.ChangeFeedProcessorChanges, Id);
            try
            {
                IReadOnlyCollection<T> items = await ChangeFeedPages.ToItemsAsync<T>(this, changes, telemetry, cancellationToken).ConfigureAwait(false);
                await onChangesDelegate(context, items, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception exception) when (OperationNames.RecordFailure(telemetry, exception))
            {
                throw;
            }
        });
    }

    public override ChangeFeedProcessorBuilder GetChangeFeedProcessorBuilder(string processorName, ChangeFeedStreamHandler onChangesDelegate)
    {
        ArgumentNullException.ThrowIfNull(onChangesDelegate);
        return _inner.GetChangeFeedProcessorBuilder(processorName, async (ChangeFeedProcessorContext context, Stream changes, CancellationToken cancellationToken) =>
        {
            using OperationTelemetry? telemetry = OperationTelemetry.Start(OperationNames.ChangeFeedProcessorChanges, Id);
            try
            {
                using PooledContentStream decrypted = await ChangeFeedPages.DecryptAsync(this, changes, telemetry, cancellationToken).ConfigureAwait(false);
                await onChangesDelegate(context, decrypted, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception exception) when (OperationNames.RecordFailure(telemetry, exception))
            {
                throw;
            }
        });
    }

    public override ChangeFeedProcessorBuilder GetChangeFeedProcessorBuilderWithManualCheckpoint<T>(string processorName, ChangeFeedHandlerWithManualCheckpoint<T> onChangesDelegate)
    {
        ArgumentNullException.ThrowIfNull(onChangesDelegate);
        return _inner.GetChangeFeedProcessorBuilderWithManualCheckpoint(processorName, async (ChangeFeedProcessorContext context, Stream changes, Func<Task> checkpointAsync, CancellationToken cancellationToken) =>
        {
            using OperationTelemetry? telemetry = OperationTelemetry.Start(OperationNames.ChangeFeedProcessorChanges, Id);
            try
            {
                IReadOnlyCollection<T> items = await ChangeFeedPages.ToItemsAsync<T>(this, changes, telemetry, cancellationToken).ConfigureAwait(false);
                await onChangesDelegate(context, items, checkpointAsync, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception exception) when (OperationNames.RecordFailure(telemetry, exception))
            {
                throw;
            }
        });
    }

    public override ChangeFeedProcessorBuilder GetChangeFeedProcessorBuilderWithManualCheckpoint(string processorName, ChangeFeedStreamHandlerWithManualCheckpoint onChangesDelegate)
    {
        ArgumentNullException.ThrowIfNull(onChangesDelegate);
        return _inner.GetChangeFeedProcessorBuilderWithManualCheckpoint(processorName, async (ChangeFeedProcessorContext context, Stream changes, Func<Task> checkpointAsync, CancellationToken cancellationToken) =>
        {
            using OperationTelemetry? telemetry = OperationTelemetry.Start(OperationNames.ChangeFeedProcessorChanges, Id);
            try
            {
                using PooledContentStream decrypted = await ChangeFeedPages.DecryptAsync(this, changes, telemetry, cancellationToken).ConfigureAwait(false);
                await onChangesDelegate(context, decrypted, checkpointAsync, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception exception) when (OperationNames.RecordFailure(telemetry, exception))
            {
                throw;
            }
        });
    }

    public override ChangeFeedProcessorBuilder GetChangeFeedProcessorBuilderWithAllVersionsAndDeletes<T>(string processorName, ChangeFeedHandler<ChangeFeedItem<T>> onChangesDelegate) =>
        throw AllVersionsAndDeletesNotSupported();

    private static void RejectAllVersionsAndDeletes(ChangeFeedMode changeFeedMode)
    {
        ArgumentNullException.ThrowIfNull(changeFeedMode);
        if (ReferenceEquals(changeFeedMode, ChangeFeedMode.AllVersionsAndDeletes) || changeFeedMode.GetType() == ChangeFeedMode.AllVersionsAndDeletes.GetType())
        {
            throw AllVersionsAndDeletesNotSupported();
        }
    }

    private static NotSupportedException AllVersionsAndDeletesNotSupported() =>
        new("The all-versions-and-deletes change feed mode is not supported through an encryption container: its items nest documents ('current', 'previous') that would stay encrypted. Use the latest-version mode.");
}

using Encryption.Custom.Json.Inspection;
using Encryption.Custom.Migration;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom;

/// <summary>
/// What each run checks before its first write: the container is surveyed (<see cref="ContainerSurvey"/>) and
/// compared with the target (<see cref="TargetComparison"/>); a target that would decrypt a path, or change how one is
/// encrypted, runs only if the options name that path. This is the one owner of that rule: the tool passes its
/// <c>--decrypt-path</c> and <c>--change-type-path</c> through the options and prints the same comparison.
/// </summary>
public sealed partial class EncryptionMigrationJob
{
    private TargetCheck? _targetCheck;

    /// <summary>
    /// Surveys the container and compares it with the target, charged to the job's budget (transient failures start
    /// the survey again). The next <see cref="RunAsync"/> uses this check rather than surveying again (the tool prints
    /// it, then runs); a later run surveys afresh, so a check never outlives the run it was made for.
    /// </summary>
    /// <exception cref="CosmosException">The service refused the query.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    internal async Task<TargetCheck> CheckTargetAsync(CancellationToken cancellationToken)
    {
        TargetCheck check = await SurveyAsync(cancellationToken).ConfigureAwait(false);
        Volatile.Write(ref _targetCheck, check);
        return check;
    }

    private async Task<TargetCheck> SurveyAsync(CancellationToken cancellationToken)
    {
        ContainerSurvey survey = await TransientFailures.RetryAsync(
            token => ContainerSurvey.RunAsync(new SurveyRequest(_container, DocumentInspector.For(_options.JsonProcessor), _crypto.Processor.MaxDepth, _encryptor, _target.SourceKeyIds, _target.Policy), _budget, _time, token),
            _time,
            cancellationToken).ConfigureAwait(false);
        return new TargetCheck(survey, TargetComparison.Compare(_target.Policy, survey.Paths, _allowedDecryptPaths, _allowedTypeChangePaths));
    }

    // Refuses, before anything is written, a target that takes away what the options did not name.
    private async Task EnsureTargetAllowedAsync(CancellationToken cancellationToken)
    {
        TargetCheck check = Interlocked.Exchange(ref _targetCheck, null) ?? await SurveyAsync(cancellationToken).ConfigureAwait(false);

        // In place, a document keeps its address: a target that would change a stored id or partition key, judged from
        // what the survey found stored there, is refused before the first write (the copy is the way to such a target).
        // (_partitionKeyPaths: read by PrepareAsync, which runs first.)
        if (_copy is null && TargetComparison.DescribeStoredKeyChange(_target.Policy, _partitionKeyPaths!, check.Survey.StoredAt) is { } addressChange)
        {
            throw new EncryptionException(EncryptionErrorKind.InvalidOptions, addressChange);
        }

        if (check.Refused.Count == 0)
        {
            return;
        }

        string what = string.Join("; ", check.Refused.Select(TargetComparison.Describe));
        throw new EncryptionException(
            EncryptionErrorKind.InvalidOptions,
            $"The migration would {what}. Nothing was written. To go ahead, add each such path to "
            + $"{nameof(EncryptionMigrationOptions)}.{nameof(EncryptionMigrationOptions.AllowedDecryptPaths)} (a path the target does not encrypt) "
            + $"or {nameof(EncryptionMigrationOptions)}.{nameof(EncryptionMigrationOptions.AllowedEncryptionTypeChangePaths)} (a changed encryption type), or change the target.",
            path: check.Refused.Count == 1 ? check.Refused[0].Path : null);
    }
}

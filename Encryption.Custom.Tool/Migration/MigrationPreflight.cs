using System.Globalization;
using System.Text.Encodings.Web;
using System.Text.Json;
using Encryption.Custom.Migration;
using Encryption.Custom.Tool.CommandLine;
using Encryption.Custom.Tool.Errors;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tool.Migration;

/// <summary>
/// What migrate checks before its first write: the job's own check (<see cref="EncryptionMigrationJob"/> surveys the
/// container once, with the run's proven keys so each path's encryption type is known, and compares it with the
/// target; the operator's <c>--decrypt-path</c> and <c>--change-type-path</c> are its options). The comparison is
/// printed, one line per DEK and per path; a run the job would refuse is refused here, with the flags to name.
/// </summary>
internal static class MigrationPreflight
{
    private static readonly JsonSerializerOptions s_quoting = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    /// <summary>Surveys the container, prints the comparison, and refuses a change the operator did not allow.</summary>
    /// <param name="job">The job whose check this is (the run that follows uses it).</param>
    /// <param name="run">The target and the command line.</param>
    /// <param name="shared">
    /// Whether the survey is the job's shared one (its lease container exists): this process surveys the ranges it
    /// claims, or reads the survey recorded by the job's other processes; else it surveys the whole container alone
    /// and writes nothing (a dry run).
    /// </param>
    /// <param name="output">Where the comparison is printed.</param>
    /// <param name="cancellationToken">Stops the survey.</param>
    /// <returns>The survey (its count is the progress's denominator).</returns>
    /// <exception cref="ToolException">A change the operator did not name (exit code 2).</exception>
    /// <exception cref="EncryptionException">A key cannot be had (exit code 3).</exception>
    /// <exception cref="CosmosException">The service refused the query.</exception>
    public static async Task<ContainerSurvey> RunAsync(
        EncryptionMigrationJob job, (ContainerEncryptionPolicy? Target, MigrationArguments Arguments) run, bool shared, TextWriter output, CancellationToken cancellationToken)
    {
        TargetCheck check = await job.CheckTargetAsync(shared, cancellationToken).ConfigureAwait(false);
        ContainerSurvey survey = check.Survey;
        foreach (string line in Lines((survey, job.SurveyedDocuments), run.Target, run.Arguments, check.Changes))
        {
            await output.WriteLineAsync(line).ConfigureAwait(false);
        }

        IReadOnlyList<PathChange> refused = check.Refused;
        if (refused.Count > 0)
        {
            string what = string.Join("; ", refused.Select(TargetComparison.Describe));
            string flags = string.Join(" ", refused.Select(c => (c.Kind == PathChangeKind.Decrypt ? "--decrypt-path " : "--change-type-path ") + c.Path));
            throw ToolException.ChangeNotAllowed(
                $"migrate would {what}. Nothing was written. To go ahead, name each such path ({flags}), or change the target; --dry-run prints the comparison.");
        }

        return survey;
    }

    /// <summary>
    /// <c>survey: documents=… unencrypted=… unreadable=… ru=… read=…</c> (<c>ru</c> the survey's, over every process
    /// that shared it; <c>read</c> the documents this process read for it: all of them alone, its ranges' when shared,
    /// 0 when it reused the survey another process recorded), then <c>dek: id="…" documents=… action=…</c> per
    /// DEK in use and <c>path: path="/…" documents=… deterministic=… randomized=… unchecked=… action=… [allowed=…]</c>
    /// per path encrypted in the container or by the target.
    /// </summary>
    internal static IEnumerable<string> Lines((ContainerSurvey Survey, long Read) surveyed, ContainerEncryptionPolicy? target, MigrationArguments arguments, IReadOnlyList<PathChange> changes)
    {
        ContainerSurvey survey = surveyed.Survey;
        yield return string.Create(
            CultureInfo.InvariantCulture,
            $"survey: documents={survey.TotalDocuments} unencrypted={survey.UnencryptedDocuments} unreadable={survey.UnreadableDocuments} ru={survey.RequestUnits:0.0} read={surveyed.Read}");
        foreach ((string id, long documents) in survey.DocumentsByDataEncryptionKeyId.OrderBy(k => k.Key, StringComparer.Ordinal))
        {
            bool accepted = arguments.AcceptedDekIds.Contains(id, StringComparer.Ordinal);
            string action = target is null
                ? accepted ? "decrypt" : "not-accepted"
                : id == target.DataEncryptionKeyId ? "keep" : accepted ? "re-encrypt" : "not-accepted";
            yield return string.Create(CultureInfo.InvariantCulture, $"dek: id={Quote(id)} documents={documents} action={action}");
        }

        IEnumerable<string> paths = survey.Paths.Keys.Union(target?.IncludedPaths.Select(p => p.Path) ?? [], StringComparer.Ordinal).Order(StringComparer.Ordinal);
        foreach (string path in paths)
        {
            PathUse use = survey.Paths.GetValueOrDefault(path);
            PathChange? change = changes.Where(c => c.Path == path).Select(c => (PathChange?)c).FirstOrDefault();
            string action = change switch
            {
                { Kind: PathChangeKind.Decrypt } => "decrypt",
                { Kind: PathChangeKind.ToDeterministic } => "to-deterministic",
                { Kind: PathChangeKind.ToRandomized } => "to-randomized",
                _ => use.Documents == 0 ? "encrypt" : "keep",
            };
            string allowed = change is { } c ? (c.Allowed ? " allowed=true" : " allowed=false") : string.Empty;

            // A path no document encrypts yet: the documents it would be encrypted in (those holding a value there).
            long documents = action == "encrypt" ? survey.DocumentsWithValues.GetValueOrDefault(path) : use.Documents;
            yield return string.Create(
                CultureInfo.InvariantCulture,
                $"path: path={Quote(path)} documents={documents} deterministic={use.Deterministic} randomized={use.Randomized} unchecked={use.Unchecked} action={action}{allowed}");
        }
    }

    private static string Quote(string text) => JsonSerializer.Serialize(text, s_quoting);
}

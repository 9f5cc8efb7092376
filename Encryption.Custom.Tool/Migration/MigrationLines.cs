using System.Globalization;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;

namespace Encryption.Custom.Tool.Migration;

/// <summary>
/// The lines migrate prints: <c>label: key=value ...</c>, one per progress report, the end of the run and each
/// document left as it was. Counts, request units, times, document ids and partition keys (which the issue asks an
/// operator to get, to find the document); never a value of a document. Strings are JSON-quoted, so a line stays
/// one line whatever an id holds.
/// </summary>
internal static class MigrationLines
{
    private static readonly JsonSerializerOptions s_quoting = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    /// <summary>
    /// <c>progress: [documents=…] seen=… rewritten=… skipped=… failed=… conflicts=… ru=… lag=… remaining=… elapsed=… [waiting=…]</c>:
    /// <c>documents</c> is the container's count from the survey before the run (so rewritten ÷ documents is how far
    /// the run is), <c>waiting</c> (progress lines only) why it is not done yet.
    /// </summary>
    public static string Progress(string label, EncryptionMigrationProgress progress, long? documents = null)
    {
        var line = new StringBuilder(160);
        line.Append(label).Append(':');
        if (documents is { } total)
        {
            Append(line, "documents", total);
        }

        Append(line, "seen", progress.DocumentsSeen);
        Append(line, "rewritten", progress.DocumentsRewritten);
        Append(line, "skipped", progress.DocumentsSkipped);
        Append(line, "failed", progress.DocumentsFailed);
        Append(line, "conflicts", progress.Conflicts);
        line.Append(" ru=").Append(progress.RequestUnits.ToString("0.0", CultureInfo.InvariantCulture));
        line.Append(" lag=").Append(progress.EstimatedLag is { } lag ? lag.ToString(CultureInfo.InvariantCulture) : "?");
        line.Append(" remaining=").Append(progress.EstimatedTimeRemaining is { } left ? Time(left) : "?");
        line.Append(" elapsed=").Append(Time(progress.Elapsed));
        if (label == "progress")
        {
            line.Append(" waiting=").Append(WaitingFor(progress));
        }

        return line.ToString();
    }

    /// <summary>
    /// Why a run is not done yet, from a progress report: <c>start</c> (the processor has no leases yet),
    /// <c>feed</c> (the estimator reports changes not read yet), <c>verification</c> (the feed is read; done once a
    /// verification finds every document in the target state).
    /// </summary>
    public static string WaitingFor(EncryptionMigrationProgress progress) => progress.EstimatedLag switch
    {
        null => "start",
        > 0 => "feed",
        _ => "verification",
    };

    /// <summary><c>failed: id="…" partitionKey="…" kind=… reason="…"</c></summary>
    public static string Failure(EncryptionMigrationFailure failure) =>
        $"failed: id={Quote(failure.Id)} partitionKey={Quote(failure.PartitionKey)} kind={failure.ErrorKind?.ToString() ?? "ServiceRefused"} reason={Quote(failure.Reason)}";

    /// <summary><c>verified: documents=… inTargetState=… outsideTargetState=…</c></summary>
    public static string Verification(EncryptionMigrationStatus status) => string.Create(
        CultureInfo.InvariantCulture,
        $"verified: documents={status.TotalDocuments} inTargetState={status.DocumentsInTargetState} outsideTargetState={status.DocumentsOutsideTargetState}");

    private static void Append(StringBuilder line, string name, long value) =>
        line.Append(' ').Append(name).Append('=').Append(value.ToString(CultureInfo.InvariantCulture));

    /// <summary>
    /// <c>copy: source=… copied=… missing=… different=… unreadable=… onlyInTarget=…</c>: a copy's last verification,
    /// every source document looked up in the target by its plaintext id and key and compared decrypted.
    /// </summary>
    public static string Copy(EncryptionCopyStatus status) => string.Create(
        CultureInfo.InvariantCulture,
        $"copy: source={status.SourceDocuments} copied={status.DocumentsCopied} missing={status.DocumentsMissingFromTarget} different={status.DocumentsDifferentInTarget} unreadable={status.UnreadableSourceDocuments} onlyInTarget={status.DocumentsOnlyInTarget}");

    private static string Time(TimeSpan time) => time.ToString(@"hh\:mm\:ss", CultureInfo.InvariantCulture);

    private static string Quote(string text) => JsonSerializer.Serialize(text, s_quoting);
}

using System.Globalization;
using Spectre.Console;

namespace Encryption.Custom.Tool.Migration;

/// <summary>
/// Progress as a Spectre.Console bar on a terminal: documents rewritten out of the documents the container held
/// before the run (the survey's count), with the counts and what the run is waiting for beside it. (Seen ÷ seen plus
/// lag, as before, read 37 % when 68 % were rewritten: the job's own writes come back through the feed.)
/// </summary>
internal sealed class TerminalProgress(ProgressTask task) : IProgress<EncryptionMigrationProgress>
{
    /// <summary>Runs <paramref name="run"/> under a progress bar written to <paramref name="output"/>.</summary>
    public static async Task<T> RunAsync<T>(TextWriter output, long documents, Func<IProgress<EncryptionMigrationProgress>, Task<T>> run)
    {
        IAnsiConsole console = AnsiConsole.Create(new AnsiConsoleSettings { Out = new AnsiConsoleOutput(output) });
        return await console.Progress()
            .AutoClear(false)
            .Columns(new TaskDescriptionColumn(), new ProgressBarColumn(), new PercentageColumn(), new RemainingTimeColumn(), new SpinnerColumn())
            .StartAsync(async context =>
            {
                ProgressTask task = context.AddTask("starting", maxValue: Math.Max(1, documents));
                return await run(new TerminalProgress(task)).ConfigureAwait(false);
            }).ConfigureAwait(false);
    }

    public void Report(EncryptionMigrationProgress value)
    {
        task.Description = string.Create(
            CultureInfo.InvariantCulture,
            $"rewritten {value.DocumentsRewritten}, skipped {value.DocumentsSkipped}, failed {value.DocumentsFailed}, {value.RequestUnits:0} RU, waiting for {MigrationLines.WaitingFor(value)}");
        task.Value = Math.Min(task.MaxValue, value.DocumentsRewritten);
    }
}

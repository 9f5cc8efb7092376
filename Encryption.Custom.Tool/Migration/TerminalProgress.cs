using System.Globalization;
using Spectre.Console;

namespace Encryption.Custom.Tool.Migration;

/// <summary>
/// Progress as a Spectre.Console bar on a terminal: documents seen out of seen plus the estimator's lag, with the
/// counts beside it. Until the first estimate the bar is indeterminate.
/// </summary>
internal sealed class TerminalProgress(ProgressTask task) : IProgress<EncryptionMigrationProgress>
{
    /// <summary>Runs <paramref name="run"/> under a progress bar written to <paramref name="output"/>.</summary>
    public static async Task<T> RunAsync<T>(TextWriter output, Func<IProgress<EncryptionMigrationProgress>, Task<T>> run)
    {
        IAnsiConsole console = AnsiConsole.Create(new AnsiConsoleSettings { Out = new AnsiConsoleOutput(output) });
        return await console.Progress()
            .AutoClear(false)
            .Columns(new TaskDescriptionColumn(), new ProgressBarColumn(), new PercentageColumn(), new RemainingTimeColumn(), new SpinnerColumn())
            .StartAsync(async context =>
            {
                ProgressTask task = context.AddTask("starting", maxValue: 1);
                task.IsIndeterminate = true;
                return await run(new TerminalProgress(task)).ConfigureAwait(false);
            }).ConfigureAwait(false);
    }

    public void Report(EncryptionMigrationProgress value)
    {
        task.Description = string.Create(
            CultureInfo.InvariantCulture,
            $"rewritten {value.DocumentsRewritten}, skipped {value.DocumentsSkipped}, failed {value.DocumentsFailed}, {value.RequestUnits:0} RU");
        if (value.EstimatedLag is { } lag)
        {
            task.IsIndeterminate = false;
            task.MaxValue = Math.Max(1, value.DocumentsSeen + lag);
            task.Value = value.DocumentsSeen;
        }
    }
}

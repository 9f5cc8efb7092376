using System.Text;
using Encryption.Custom.Tool.Documents;

namespace Encryption.Custom.Tool.Migration;

/// <summary>
/// The <c>failed:</c> lines at the end of a run: the first <see cref="ShownOnOutput"/> on standard output and a count
/// of the rest, so a container where every document fails does not bury the summary under thousands of lines; every
/// line goes to <c>--failures-file</c> when given.
/// </summary>
internal static class FailureLines
{
    /// <summary>How many failures standard output lists.</summary>
    public const int ShownOnOutput = 20;

    /// <exception cref="Errors.ToolException">The failures file cannot be written (exit code 1).</exception>
    public static async Task WriteAsync(IReadOnlyList<EncryptionMigrationFailure> failures, TextWriter output, string? failuresFile, ToolConsole console, CancellationToken cancellationToken)
    {
        foreach (EncryptionMigrationFailure failure in failures.Take(ShownOnOutput))
        {
            await output.WriteLineAsync(MigrationLines.Failure(failure)).ConfigureAwait(false);
        }

        if (failures.Count > ShownOnOutput)
        {
            string where = failuresFile is null ? "give --failures-file PATH to get every line" : "every line is in the failures file";
            await output.WriteLineAsync($"failed: {failures.Count - ShownOnOutput} more document(s) not listed here ({where}).").ConfigureAwait(false);
        }

        if (failuresFile is not null)
        {
            var all = new StringBuilder();
            foreach (EncryptionMigrationFailure failure in failures)
            {
                all.Append(MigrationLines.Failure(failure)).Append('\n');
            }

            // The file is written whole (even empty, so an old one is not mistaken for this run's), through a temporary file.
            await DocumentOutput.WriteAsync(failuresFile, console.Out, Encoding.UTF8.GetBytes(all.ToString()), cancellationToken).ConfigureAwait(false);
        }
    }
}

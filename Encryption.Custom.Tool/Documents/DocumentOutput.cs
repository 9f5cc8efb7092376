using System.Collections.Concurrent;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.Documents;

/// <summary>
/// Writes a finished result: to standard output, or to the <c>--out</c> file through a temporary file in the same
/// folder that is renamed over it, so that a failure leaves no partial file and an existing file untouched.
/// </summary>
internal static class DocumentOutput
{
    // Temporary files being written, deleted by DeletePendingFiles when the process is interrupted.
    private static readonly ConcurrentDictionary<string, bool> s_pending = new(StringComparer.Ordinal);

    /// <summary>Writes <paramref name="content"/> to <paramref name="path"/>, or to <paramref name="standardOutput"/> when it is <see langword="null"/>.</summary>
    /// <exception cref="ToolException">The output cannot be written (exit code 1).</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public static async Task WriteAsync(string? path, Stream standardOutput, ReadOnlyMemory<byte> content, CancellationToken cancellationToken)
    {
        if (path is null)
        {
            try
            {
                await standardOutput.WriteAsync(content, cancellationToken);
                await standardOutput.FlushAsync(cancellationToken);
            }
            catch (IOException exception)
            {
                throw ToolException.OutputFailed($"Standard output cannot be written: {exception.Message}", exception);
            }

            return;
        }

        string target;
        string temporary;
        try
        {
            target = Path.GetFullPath(path);
            string directory = Path.GetDirectoryName(target) ?? throw new IOException("The output path has no folder.");
            temporary = Path.Combine(directory, $".{Path.GetFileName(target)}.{Path.GetRandomFileName()}.tmp");
        }
        catch (Exception exception) when (exception is IOException or ArgumentException or NotSupportedException)
        {
            throw Unwritable(path, exception);
        }

        s_pending[temporary] = true;
        try
        {
            await WriteTemporaryAsync(temporary, content, cancellationToken);
            File.Move(temporary, target, overwrite: true);
        }
        catch (Exception exception)
        {
            TryDelete(temporary);
            if (exception is IOException or UnauthorizedAccessException)
            {
                throw Unwritable(path, exception);
            }

            throw;
        }
        finally
        {
            s_pending.TryRemove(temporary, out _);
        }
    }

    /// <summary>Deletes the temporary files of writes in progress (for Ctrl+C and process termination).</summary>
    public static void DeletePendingFiles()
    {
        foreach (string temporary in s_pending.Keys)
        {
            TryDelete(temporary);
        }
    }

    private static async Task WriteTemporaryAsync(string temporary, ReadOnlyMemory<byte> content, CancellationToken cancellationToken)
    {
        var options = new FileStreamOptions
        {
            Mode = FileMode.CreateNew,
            Access = FileAccess.Write,

            // Delete sharing lets an interrupt handler remove the file while it is still open (Windows).
            Share = FileShare.Delete,
            BufferSize = 0,
        };
        if (!OperatingSystem.IsWindows())
        {
            // The result may hold plaintext: readable by its owner only.
            options.UnixCreateMode = UnixFileMode.UserRead | UnixFileMode.UserWrite;
        }

        await using var stream = new FileStream(temporary, options);
        await stream.WriteAsync(content, cancellationToken);

        // On disk before the rename, so that a crash cannot leave an empty file under the final name.
        stream.Flush(flushToDisk: true);
    }

    private static ToolException Unwritable(string path, Exception exception) =>
        ToolException.OutputFailed($"The output file '{path}' cannot be written: {exception.Message}", exception);

    private static void TryDelete(string path)
    {
        try
        {
            File.Delete(path);
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            // Best effort: the original failure is what the operator needs to see.
        }
    }
}

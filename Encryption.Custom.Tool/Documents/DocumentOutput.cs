using System.Collections.Concurrent;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.Documents;

/// <summary>
/// Writes a finished result: to standard output, or to <c>--out</c>. A missing or regular file is written through a
/// temporary file in the same folder that is renamed over it, so that a failure leaves no partial file and an
/// existing file untouched; a character device or FIFO is written through (renaming over it would replace the
/// device node with a plaintext file); a symbolic link, folder, block device or socket is refused.
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
                await WriteThroughAsync(standardOutput, content, cancellationToken);
            }
            catch (IOException exception)
            {
                throw ToolException.OutputFailed($"Standard output cannot be written: {exception.Message}", exception);
            }

            return;
        }

        string target;
        string temporary;
        OutputTargetKind kind;
        try
        {
            target = Path.GetFullPath(path);
            string directory = Path.GetDirectoryName(target) ?? throw new IOException("The output path has no folder.");
            temporary = Path.Combine(directory, $".{Path.GetFileName(target)}.{Path.GetRandomFileName()}.tmp");
            kind = OutputTarget.Classify(target);
        }
        catch (Exception exception) when (exception is IOException or ArgumentException or NotSupportedException)
        {
            throw Unwritable(path, exception);
        }

        switch (kind)
        {
            case OutputTargetKind.SymbolicLink:
                throw ToolException.OutputFailed($"The output path '{path}' is a symbolic link: give the path of the file it points to (a link is never replaced or followed).", null);
            case OutputTargetKind.Unsupported:
                throw ToolException.OutputFailed($"The output path '{path}' is not a regular file, character device or FIFO.", null);
            case OutputTargetKind.WriteThrough:
                await WriteToDeviceAsync(path, target, content, cancellationToken);
                return;
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

    // A character device or FIFO gets the bytes; it is opened for writing only once the result is complete.
    private static async Task WriteToDeviceAsync(string path, string target, ReadOnlyMemory<byte> content, CancellationToken cancellationToken)
    {
        try
        {
            cancellationToken.ThrowIfCancellationRequested();
            await using var stream = new FileStream(target, new FileStreamOptions { Mode = FileMode.Open, Access = FileAccess.Write, BufferSize = 0 });
            await WriteThroughAsync(stream, content, cancellationToken);
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            throw Unwritable(path, exception);
        }
    }

    // A stream that cannot be taken back (standard output, a device, a FIFO) gets all of the result or none of it:
    // cancellation is observed before the write starts, never in the middle of it.
    private static async Task WriteThroughAsync(Stream stream, ReadOnlyMemory<byte> content, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        await stream.WriteAsync(content, CancellationToken.None);
        await stream.FlushAsync(CancellationToken.None);
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

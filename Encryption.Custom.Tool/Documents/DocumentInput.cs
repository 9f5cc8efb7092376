using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.Documents;

/// <summary>Where a command reads its document: the <c>--in</c> file (owned, closed afterwards) or standard input (borrowed).</summary>
internal sealed class DocumentInput : IDisposable
{
    private readonly bool _owned;

    private DocumentInput(Stream stream, bool owned)
    {
        Stream = stream;
        _owned = owned;
    }

    public Stream Stream { get; }

    /// <summary>Opens <paramref name="path"/>, or borrows <paramref name="standardInput"/> when it is <see langword="null"/>.</summary>
    /// <exception cref="ToolException">The file cannot be opened (exit code 3).</exception>
    public static DocumentInput Open(string? path, Stream standardInput)
    {
        if (path is null)
        {
            return new DocumentInput(standardInput, owned: false);
        }

        try
        {
            // Unbuffered: the processor reads into its own pooled buffer, which it wipes; no second copy here.
            return new DocumentInput(new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, bufferSize: 0), owned: true);
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            throw Unreadable(exception);
        }
    }

    /// <summary>The error for an input that fails while it is read.</summary>
    public static ToolException Unreadable(Exception exception) => ToolException.BadInput(
        ToolException.InputUnavailableKind,
        $"The input document cannot be read: {exception.Message}",
        exception);

    public void Dispose()
    {
        if (_owned)
        {
            Stream.Dispose();
        }
    }
}

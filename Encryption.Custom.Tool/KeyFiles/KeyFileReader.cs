using System.Security.Cryptography;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.KeyFiles;

/// <summary>
/// Reads a key file (64 hexadecimal characters, see <see cref="HexKeyDecoder"/>) straight into the caller's key
/// buffer: unbuffered reads into a stack chunk that is wiped afterwards, no string of the key, no copy elsewhere.
/// </summary>
internal static class KeyFileReader
{
    private const int ChunkLength = 256;

    // Far above any real key file (64 digits and some whitespace); stops an endless stream of whitespace.
    private const int MaxFileLength = 64 * 1024;

    /// <summary>Reads the key file at <paramref name="path"/> into <paramref name="key"/>.</summary>
    /// <param name="path">The key file.</param>
    /// <param name="key">Receives the 32-byte key; wiped when the file is not a valid key file.</param>
    /// <exception cref="ToolException">The file cannot be read or does not hold exactly one key (exit code 3).</exception>
    public static void Read(string path, Span<byte> key)
    {
        if (key.Length != HexKeyDecoder.KeyLength)
        {
            throw new ArgumentException("The key buffer must be 32 bytes.", nameof(key));
        }

        Span<byte> chunk = stackalloc byte[ChunkLength];
        string? problem = null;
        bool unreadable = false;
        try
        {
            using FileStream file = Open(path);
            var decoder = new HexKeyDecoder();
            long total = 0;
            int read;
            while (problem is null && (read = file.Read(chunk)) > 0)
            {
                total += read;
                problem = total > MaxFileLength
                    ? "it is larger than 64 KiB"
                    : decoder.Feed(chunk[..read], key);
            }

            problem ??= decoder.Finish();
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            problem = Describe(exception);
            unreadable = true;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(chunk);
            if (problem is not null)
            {
                CryptographicOperations.ZeroMemory(key);
            }
        }

        if (problem is not null)
        {
            // The path is not printed: an operator who passed the key itself instead of a file would see it echoed.
            throw ToolException.BadInput(
                ToolException.InvalidKeyFileKind,
                unreadable
                    ? $"The key file (--key-file) cannot be read: {problem}."
                    : $"The key file (--key-file) must hold exactly 64 hexadecimal characters, the raw 32-byte key, optionally surrounded by whitespace: {problem}.");
        }
    }

    // No buffer inside the stream: every byte read lands in the caller's chunk only.
    private static FileStream Open(string path) => new(path, FileMode.Open, FileAccess.Read, FileShare.Read, bufferSize: 0);

    private static string Describe(Exception exception) => exception switch
    {
        FileNotFoundException => "it does not exist",
        DirectoryNotFoundException => "its folder does not exist",
        UnauthorizedAccessException => "it cannot be opened (access denied, or it is a folder)",
        _ => $"it cannot be read ({exception.GetType().Name})",
    };
}

using System.Buffers;
using System.Collections.Concurrent;
using System.Text;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// Turns the UTF-8 DEK id of a document into a string without allocating when the id was seen before, so that
/// decryption can ask the <see cref="Encryptor"/> for the key with no per-document allocation.
/// </summary>
/// <remarks>Bounded: when it holds <see cref="MaxEntries"/> ids it starts over (ids come from documents, which an attacker may write).</remarks>
internal static class DataEncryptionKeyIdCache
{
    public const int MaxEntries = 1024;

    private const int StackChars = 128;

    private static readonly ConcurrentDictionary<string, string> s_ids = new(StringComparer.Ordinal);
    private static readonly ConcurrentDictionary<string, string>.AlternateLookup<ReadOnlySpan<char>> s_lookup =
        s_ids.GetAlternateLookup<ReadOnlySpan<char>>();

    private static int s_count;

    /// <summary>The id as a string, shared with earlier calls for the same id.</summary>
    public static string GetId(ReadOnlySpan<byte> utf8Id)
    {
        char[]? rented = null;
        Span<char> chars = utf8Id.Length <= StackChars
            ? stackalloc char[StackChars]
            : (rented = ArrayPool<char>.Shared.Rent(utf8Id.Length));
        try
        {
            // The reader validated the UTF-8 already; UTF-8 never has fewer bytes than UTF-16 code units.
            int length = Encoding.UTF8.GetChars(utf8Id, chars);
            ReadOnlySpan<char> id = chars[..length];
            if (s_lookup.TryGetValue(id, out string? cached))
            {
                return cached;
            }

            string created = id.ToString();
            if (Interlocked.Increment(ref s_count) > MaxEntries)
            {
                s_ids.Clear();
                Interlocked.Exchange(ref s_count, 1);
            }

            return s_ids.GetOrAdd(created, created);
        }
        finally
        {
            if (rented is not null)
            {
                ArrayPool<char>.Shared.Return(rented);
            }
        }
    }
}

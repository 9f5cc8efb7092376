using System.Buffers;
using System.Text;

namespace Encryption.Custom.Json.Text;

/// <summary>
/// The policy's property names under the comparison serializers bind with (ordinal, ignoring case: Newtonsoft's
/// contract lookup and System.Text.Json's case-insensitive option both use it), for the question "does this name,
/// which matched no path exactly, bind to one anyway?". One hash lookup per name, whatever the number of paths.
/// </summary>
/// <remarks>
/// Built once per compiled plan and read-only afterwards, so lookups are safe from many threads. Lookups allocate
/// nothing: a UTF-8 name is transcoded into a stack buffer (a pooled one past <see cref="StackChars"/>) and looked up
/// through the dictionary's span lookup.
/// </remarks>
internal sealed class CaseInsensitiveNameIndex
{
    private const int StackChars = 256;

    private readonly Dictionary<string, int> _names;
    private readonly Dictionary<string, int>.AlternateLookup<ReadOnlySpan<char>> _lookup;

    // Bit n is set when a name is n UTF-16 units long (bit 63: 63 or more). Names equal ignoring case have the same
    // UTF-16 length (the comparison maps unit by unit), and an ASCII name's UTF-16 length is its byte length: with
    // a few paths, most ASCII names are told apart here without transcoding or hashing.
    private readonly ulong _lengths;

    /// <summary>Indexes <paramref name="names"/>; a name equal to an earlier one ignoring case keeps the earlier index.</summary>
    public CaseInsensitiveNameIndex(IReadOnlyList<string> names)
    {
        _names = new Dictionary<string, int>(names.Count, StringComparer.OrdinalIgnoreCase);
        for (int i = 0; i < names.Count; i++)
        {
            _names.TryAdd(names[i], i);
            _lengths |= LengthBit(names[i].Length);
        }

        _lookup = _names.GetAlternateLookup<ReadOnlySpan<char>>();
    }

    /// <summary>The index of a name equal to <paramref name="name"/> ignoring case, or -1.</summary>
    public int Find(ReadOnlySpan<char> name) =>
        (_lengths & LengthBit(name.Length)) != 0 && _lookup.TryGetValue(name, out int index) ? index : -1;

    /// <summary>The index of a name equal to <paramref name="utf8Name"/> (valid UTF-8, unescaped) ignoring case, or -1.</summary>
    public int Find(ReadOnlySpan<byte> utf8Name)
    {
        if (_names.Count == 0 || ((_lengths & LengthBit(utf8Name.Length)) == 0 && Ascii.IsValid(utf8Name)))
        {
            return -1;
        }

        // UTF-8 never needs more UTF-16 units than it has bytes.
        char[]? rented = null;
        Span<char> chars = utf8Name.Length <= StackChars
            ? stackalloc char[StackChars]
            : (rented = ArrayPool<char>.Shared.Rent(utf8Name.Length));
        try
        {
            int length = Encoding.UTF8.GetChars(utf8Name, chars);
            return Find(chars[..length]);
        }
        finally
        {
            if (rented is not null)
            {
                ArrayPool<char>.Shared.Return(rented);
            }
        }
    }

    private static ulong LengthBit(int length) => 1UL << Math.Min(length, 63);
}

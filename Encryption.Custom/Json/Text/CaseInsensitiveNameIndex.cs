using System.Buffers;
using System.Numerics;
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

    // When every name is ASCII: one bit per name, set from its length and its first, second, second-to-last and last
    // bytes folded to lower case (names numbered in a series, "sku12" beside "ssn12", differ in the second), sized to the number of names (16 bits each). Another ASCII name can equal one of them
    // ignoring case only if its bit is set, so most names that bind to no path are told apart in a few instructions,
    // without transcoding or hashing, however many paths there are. Null when a name is not ASCII: "\u0131" (dotless
    // i) and "\u017F" (long s) equal "I" and "S" ignoring case, so ASCII bytes alone cannot rule a match out.
    private readonly ulong[]? _asciiFilter;

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
        if (names.Count > 0 && names.All(name => Ascii.IsValid(name)))
        {
            _asciiFilter = new ulong[(int)BitOperations.RoundUpToPowerOf2((uint)Math.Max(4, names.Count / 4))];
            foreach (string name in names)
            {
                int bit = AsciiFilterBit(name.AsSpan(), _asciiFilter.Length);
                _asciiFilter[bit >> 6] |= 1UL << bit;
            }
        }
    }

    /// <summary>The index of a name equal to <paramref name="name"/> ignoring case, or -1.</summary>
    public int Find(ReadOnlySpan<char> name) =>
        Ascii.IsValid(name) && !MayHoldAscii(name) ? -1 : LookUp(name);

    /// <summary>The index of a name equal to <paramref name="utf8Name"/> (valid UTF-8, unescaped) ignoring case, or -1.</summary>
    public int Find(ReadOnlySpan<byte> utf8Name)
    {
        if (_names.Count == 0 || (Ascii.IsValid(utf8Name) && !MayHoldAscii(utf8Name)))
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
            return LookUp(chars[..length]);
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

    // False only when no name can equal this ASCII name ignoring case: no name of its length, or its filter bit clear.
    private bool MayHoldAscii<T>(ReadOnlySpan<T> name)
        where T : unmanaged, IBinaryInteger<T>
    {
        if ((_lengths & LengthBit(name.Length)) == 0)
        {
            return false;
        }

        if (_asciiFilter is not { } filter)
        {
            return true;
        }

        int bit = AsciiFilterBit(name, filter.Length);
        return (filter[bit >> 6] & (1UL << bit)) != 0;
    }

    private int LookUp(ReadOnlySpan<char> name) =>
        (_lengths & LengthBit(name.Length)) != 0 && _lookup.TryGetValue(name, out int index) ? index : -1;

    // OR 0x20 turns an ASCII capital into its small letter and leaves small letters alone: case variants share a bit
    // (other characters may share one too, which only sends a name on to the exact lookup).
    private static int AsciiFilterBit<T>(ReadOnlySpan<T> name, int words)
        where T : unmanaged, IBinaryInteger<T>
    {
        if (name.IsEmpty)
        {
            return 0;
        }

        uint first = uint.CreateTruncating(name[0]) | 0x20;
        uint second = name.Length > 1 ? uint.CreateTruncating(name[1]) | 0x20 : 0;
        uint last = uint.CreateTruncating(name[^1]) | 0x20;
        uint beforeLast = name.Length > 1 ? uint.CreateTruncating(name[^2]) | 0x20 : 0;
        uint mix = (first * 0x9E3779B1u) ^ (second * 0x165667B1u) ^ (last * 0x85EBCA77u) ^ (beforeLast * 0xC2B2AE3Du) ^ ((uint)name.Length * 0x27D4EB2Fu);
        mix ^= mix >> 15;
        return (int)(mix & (uint)((words * 64) - 1));
    }
}

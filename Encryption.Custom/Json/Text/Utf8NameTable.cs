using System.Buffers.Binary;
using System.Diagnostics;
using System.Numerics;

namespace Encryption.Custom.Json.Text;

/// <summary>
/// A small hash set of UTF-8 property names mapping each name to the index it was added at. Used to match a
/// document's top-level property names against the paths to encrypt or decrypt in O(1) per property.
/// </summary>
/// <remarks>
/// Names are copied into an owned buffer. Reusable through <see cref="Clear"/> (its arrays are kept, so a reused
/// table allocates nothing). Lookups on a table that is no longer written to are safe from many threads. The
/// hash is <see cref="HashCode"/>, randomly seeded per process, so crafted names cannot force collisions.
/// </remarks>
internal sealed class Utf8NameTable
{
    private const int FilterWords = 4;

    private byte[] _names = new byte[64];
    private int _namesLength;
    private int[] _offsets = new int[4];
    private int[] _lengths = new int[4];
    private int[] _hashes = new int[4];
    private int _count;
    private int[] _slots = new int[8]; // entry index + 1; 0 = empty
    private readonly ulong[] _filter = new ulong[FilterWords]; // one bit per name: most lookups of absent names stop here

    /// <summary>The number of names.</summary>
    public int Count => _count;

    /// <summary>The name added at <paramref name="index"/>.</summary>
    public ReadOnlySpan<byte> GetName(int index)
    {
        Debug.Assert((uint)index < (uint)_count, "Index in range.");
        return _names.AsSpan(_offsets[index], _lengths[index]);
    }

    /// <summary>Adds <paramref name="name"/> unless present.</summary>
    /// <returns>The new index, or -1 when the name was already present.</returns>
    public int Add(ReadOnlySpan<byte> name)
    {
        int hash = Hash(name);
        if (Find(name, hash) >= 0)
        {
            return -1;
        }

        if (_count == _offsets.Length)
        {
            int newSize = _count * 2;
            Array.Resize(ref _offsets, newSize);
            Array.Resize(ref _lengths, newSize);
            Array.Resize(ref _hashes, newSize);
        }

        if (_namesLength + name.Length > _names.Length)
        {
            Array.Resize(ref _names, Math.Max(_names.Length * 2, _namesLength + name.Length));
        }

        int index = _count++;
        int bit = FilterBit(name);
        _filter[bit >> 6] |= 1UL << bit;
        name.CopyTo(_names.AsSpan(_namesLength));
        _offsets[index] = _namesLength;
        _lengths[index] = name.Length;
        _hashes[index] = hash;
        _namesLength += name.Length;

        // Keep the load factor at or below one half.
        if (_count * 2 > _slots.Length)
        {
            Rehash(_slots.Length * 2);
        }
        else
        {
            Insert(index);
        }

        return index;
    }

    /// <summary>The index of <paramref name="name"/>, or -1.</summary>
    public int Find(ReadOnlySpan<byte> name)
    {
        int bit = FilterBit(name);
        return (_filter[bit >> 6] & (1UL << bit)) == 0 ? -1 : Find(name, Hash(name));
    }

    /// <summary>Removes every name; keeps the arrays.</summary>
    public void Clear()
    {
        if (_count == 0)
        {
            return;
        }

        Array.Clear(_slots);
        _count = 0;
        _namesLength = 0;
        Array.Clear(_filter);
    }

    // Length, first and last byte: a few instructions that tell apart names like "note1" and "note2", which a
    // length-only filter cannot (a document's names often share lengths). Collisions only cost a hash lookup.
    private static int FilterBit(ReadOnlySpan<byte> name) =>
        name.IsEmpty ? 0 : ((name[0] * 31) + (name[^1] * 7) + name.Length) & ((FilterWords * 64) - 1);

    private static int Hash(ReadOnlySpan<byte> name)
    {
        // Up to 16 bytes (nearly every property name) the name is read as four words, first and last half
        // overlapping, which with the length identify it exactly: HashCode.Combine over them costs about a
        // third of AddBytes, which mixes byte by byte. Both are seeded per process, so crafted names cannot
        // aim at collisions.
        if (name.Length <= 16)
        {
            (uint a, uint b, uint c, uint d) = ReadWords(name);
            return HashCode.Combine(a, b, c, d, name.Length);
        }

        var hash = default(HashCode);
        hash.AddBytes(name);
        return hash.ToHashCode();
    }

    private static (uint A, uint B, uint C, uint D) ReadWords(ReadOnlySpan<byte> name)
    {
        if (name.Length >= 8)
        {
            ulong first = BinaryPrimitives.ReadUInt64LittleEndian(name);
            ulong last = BinaryPrimitives.ReadUInt64LittleEndian(name[^8..]);
            return ((uint)first, (uint)(first >> 32), (uint)last, (uint)(last >> 32));
        }

        if (name.Length >= 4)
        {
            return (BinaryPrimitives.ReadUInt32LittleEndian(name), BinaryPrimitives.ReadUInt32LittleEndian(name[^4..]), 0, 0);
        }

        // 0 to 3 bytes: the first, middle and last byte are all of them.
        return name.IsEmpty ? (0u, 0u, 0u, 0u) : (name[0] | ((uint)name[name.Length / 2] << 8) | ((uint)name[^1] << 16), 0u, 0u, 0u);
    }

    private int Find(ReadOnlySpan<byte> name, int hash)
    {
        int mask = _slots.Length - 1;
        int slot = hash & mask;
        while (true)
        {
            int entry = _slots[slot] - 1;
            if (entry < 0)
            {
                return -1;
            }

            if (_hashes[entry] == hash && _lengths[entry] == name.Length && GetName(entry).SequenceEqual(name))
            {
                return entry;
            }

            slot = (slot + 1) & mask;
        }
    }

    private void Insert(int index)
    {
        int mask = _slots.Length - 1;
        int slot = _hashes[index] & mask;
        while (_slots[slot] != 0)
        {
            slot = (slot + 1) & mask;
        }

        _slots[slot] = index + 1;
    }

    private void Rehash(int size)
    {
        Debug.Assert(BitOperations.IsPow2(size), "Power-of-two table.");
        _slots = new int[size];
        for (int i = 0; i < _count; i++)
        {
            Insert(i);
        }
    }
}

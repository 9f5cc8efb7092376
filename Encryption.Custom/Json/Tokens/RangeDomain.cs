// The binary tree of a range path (docs/queries.md "Range and prefix queries"): values are scaled to an integer
// offset o in [0, MaxOffset]; the tree has Bits + 1 levels, level 0 the root (one node, the whole domain) and level
// Bits the leaves (one node per offset); the node of o at level l is o >> (Bits - l). A document stores a token for
// the node of its value at every stored level; a range becomes the fewest stored-level nodes that cover it exactly.
using System.Numerics;

namespace Encryption.Custom.Json.Tokens;

/// <summary>The kind of values a range path holds (how a JSON value becomes a tree offset).</summary>
internal enum RangeValueType
{
    /// <summary>JSON numbers that are integers.</summary>
    Integer,

    /// <summary>JSON numbers, scaled by 10^precision and rounded down.</summary>
    Decimal,

    /// <summary>ISO 8601 date-time strings with an offset, as instants, in units of a resolution, rounded down.</summary>
    DateTime,
}

/// <summary>A compiled range declaration: the domain, the tree over it, and which levels are stored.</summary>
internal sealed class RangeDomain
{
    /// <summary>The most nodes a cover may hold; a declaration whose worst case exceeds it is refused.</summary>
    public const int MaxCoverNodes = 512;

    private readonly decimal _minimum;
    private readonly decimal _scale;

    /// <param name="type">The value type.</param>
    /// <param name="minimum">The smallest value (ticks for date-times), in value units.</param>
    /// <param name="maximum">The largest value (ticks for date-times).</param>
    /// <param name="scale">Offsets per value unit: 10^precision for decimals, 1 / resolution ticks for date-times, 1 for integers.</param>
    /// <param name="sparsity">Every how many levels, counted up from the leaves, a token is stored (1 to 4).</param>
    /// <param name="trimFactor">How many levels below the root are not stored (the root never is).</param>
    /// <param name="descriptor">The declaration in canonical text, part of every token's input.</param>
    public RangeDomain(RangeValueType type, decimal minimum, decimal maximum, decimal scale, int sparsity, int trimFactor, string descriptor)
    {
        Type = type;
        _minimum = minimum;
        _scale = scale;
        Sparsity = sparsity;
        TrimFactor = trimFactor;
        Descriptor = descriptor;
        decimal span;
        try
        {
            span = decimal.Floor((maximum - minimum) * scale);
        }
        catch (OverflowException)
        {
            throw new ArgumentException("the domain (maximum - minimum, scaled by the precision) does not fit in the 64-level tree.");
        }

        if (maximum <= minimum || span < 1)
        {
            throw new ArgumentException("the maximum must be above the minimum by at least one step of the declared precision.");
        }

        if (span > ulong.MaxValue)
        {
            throw new ArgumentException("the domain (maximum - minimum, scaled by the precision) does not fit in the 64-level tree.");
        }

        MaxOffset = (ulong)span;
        Bits = 64 - BitOperations.LeadingZeroCount(MaxOffset);
        if (1 + trimFactor > Bits)
        {
            throw new ArgumentException($"the trim factor {trimFactor} leaves no stored level in a tree of {Bits} levels below the root.");
        }

        for (int level = 1; level <= Bits; level++)
        {
            if (IsStored(level))
            {
                StoredLevelCount++;
            }
        }

        // Worst case of the greedy cover: up to 2 * (2^s - 1) nodes per stored level, plus the top stored level's nodes.
        long worst = (2L * ((1L << sparsity) - 1) * StoredLevelCount) + (1L << Math.Min(62, TopStoredLevel));
        if (worst > MaxCoverNodes)
        {
            throw new ArgumentException($"a range query could need {worst} tree nodes (at most {MaxCoverNodes} are sent); lower the trim factor or the sparsity.");
        }
    }

    /// <summary>The value type.</summary>
    public RangeValueType Type { get; }

    /// <summary>Every how many levels a token is stored.</summary>
    public int Sparsity { get; }

    /// <summary>Levels below the root that are not stored.</summary>
    public int TrimFactor { get; }

    /// <summary>The canonical text of the declaration.</summary>
    public string Descriptor { get; }

    /// <summary>The largest offset (the maximum, scaled).</summary>
    public ulong MaxOffset { get; }

    /// <summary>The tree's height: levels 0 (root) to <see cref="Bits"/> (leaves).</summary>
    public int Bits { get; }

    /// <summary>The number of levels a document stores a token for: its tokens per document.</summary>
    public int StoredLevelCount { get; }

    /// <summary>The stored level nearest the root.</summary>
    public int TopStoredLevel
    {
        get
        {
            int level = 1 + TrimFactor;
            while (!IsStored(level))
            {
                level++;
            }

            return level;
        }
    }

    /// <summary>Whether level <paramref name="level"/> (0 = root) holds tokens: below the trimmed top, and every <see cref="Sparsity"/>-th level up from the leaves.</summary>
    public bool IsStored(int level) => level >= 1 + TrimFactor && level <= Bits && (Bits - level) % Sparsity == 0;

    /// <summary>The offset of <paramref name="value"/> (in value units), or false when it lies outside the domain.</summary>
    public bool TryGetOffset(decimal value, out ulong offset)
    {
        offset = 0;
        decimal scaled;
        try
        {
            scaled = decimal.Floor((value - _minimum) * _scale);
        }
        catch (OverflowException)
        {
            return false;
        }

        if (scaled < 0 || scaled > MaxOffset)
        {
            return false;
        }

        offset = (ulong)scaled;
        return true;
    }

    /// <summary>
    /// The offsets a query's bounds cover (<see langword="null"/>: open), or false when no value of the domain can lie
    /// between them (a bound beyond the domain's other end, or the bounds crossed).
    /// </summary>
    public bool TryGetCoverBounds(decimal? low, decimal? high, out ulong lowOffset, out ulong highOffset)
    {
        lowOffset = low is { } l ? ClampOffset(l) : 0;
        highOffset = high is { } h ? ClampOffset(h) : MaxOffset;
        bool lowAbove = low is { } a && !TryGetOffset(a, out _) && a > _minimum;
        bool highBelow = high is { } b && !TryGetOffset(b, out _) && b < _minimum;
        return !lowAbove && !highBelow && lowOffset <= highOffset && (low is null || high is null || low <= high);
    }

    /// <summary>
    /// The offset a query bound maps to, clamped into the domain: rounding down is monotonic, so every value inside
    /// the bounds has its offset inside the bounds' offsets (the cover may hold more; the re-check removes it).
    /// </summary>
    public ulong ClampOffset(decimal value)
    {
        decimal scaled;
        try
        {
            scaled = decimal.Floor((value - _minimum) * _scale);
        }
        catch (OverflowException)
        {
            return value < _minimum ? 0 : MaxOffset;
        }

        return scaled < 0 ? 0 : scaled > MaxOffset ? MaxOffset : (ulong)scaled;
    }

    /// <summary>
    /// Adds to <paramref name="nodes"/> the fewest nodes of stored levels whose leaves are exactly the offsets
    /// <paramref name="low"/> to <paramref name="high"/> (inclusive): from the left end, each time the largest
    /// aligned block of a stored level that fits. Greedy is optimal because every stored block size divides the next.
    /// </summary>
    public void Cover(ulong low, ulong high, List<(int Level, ulong Node)> nodes)
    {
        if (low > high || high > MaxOffset)
        {
            return;
        }

        int maxHeight = Bits - TopStoredLevel;
        ulong position = low;
        while (true)
        {
            int height = maxHeight;
            while (height > 0 && ((position & ((1UL << height) - 1)) != 0 || high - position < (1UL << height) - 1))
            {
                height -= Sparsity;
            }

            height = Math.Max(height, 0);
            nodes.Add((Bits - height, position >> height));
            ulong last = position + ((1UL << height) - 1);
            if (last >= high)
            {
                return;
            }

            position = last + 1;
        }
    }
}

using Encryption.Custom.Json.Tokens;

namespace Encryption.Custom;

/// <summary>
/// Range queries (<c>&lt;</c>, <c>&lt;=</c>, <c>&gt;</c>, <c>&gt;=</c>, <c>BETWEEN</c>) on a path over a declared
/// domain: each value is scaled to an offset in the domain's binary tree and the document stores a token for the
/// tree node of its value at every stored level. Use <see cref="IntegerRangeQueryOptions"/>,
/// <see cref="DecimalRangeQueryOptions"/> or <see cref="DateTimeRangeQueryOptions"/>.
/// </summary>
public abstract class RangeQueryOptions : QueryTokenOptions
{
    private protected RangeQueryOptions()
    {
    }

    /// <summary>
    /// Every how many tree levels, counted up from the leaves, a token is stored: 1 to 4. Default 2: half the tokens
    /// per document of 1, at the price of up to 3 (rather than 1) nodes per level in a query's cover.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 1 to 4.</exception>
    public int Sparsity
    {
        get;
        init
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 1);
            ArgumentOutOfRangeException.ThrowIfGreaterThan(value, 4);
            field = value;
        }
    } = 2;

    /// <summary>
    /// How many levels below the root store no token (the root never does: every document shares it). Default 0.
    /// Trimming hides the coarsest buckets (fewer documents share a token) and costs queries more nodes.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is negative.</exception>
    public int TrimFactor
    {
        get;
        init
        {
            ArgumentOutOfRangeException.ThrowIfNegative(value);
            field = value;
        }
    }

    internal abstract RangeDomain CreateDomain();

    internal override QueryTokenRule Compile(string path) => QueryTokenRule.ForRange(path, CreateDomain(), TokenLength);
}

/// <summary>Range queries on a path holding JSON integers from <see cref="Minimum"/> to <see cref="Maximum"/>.</summary>
/// <param name="minimum">The smallest value a document may hold.</param>
/// <param name="maximum">The largest value a document may hold (above <paramref name="minimum"/>).</param>
public sealed class IntegerRangeQueryOptions(long minimum, long maximum) : RangeQueryOptions
{
    /// <summary>The smallest value a document may hold; a write outside the domain is refused.</summary>
    public long Minimum { get; } = minimum;

    /// <summary>The largest value a document may hold.</summary>
    public long Maximum { get; } = maximum;

    internal override RangeDomain CreateDomain() =>
        new(RangeValueType.Integer, Minimum, Maximum, 1, Sparsity, TrimFactor, FormattableString.Invariant($"int:{Minimum}:{Maximum}"));
}

/// <summary>
/// Range queries on a path holding JSON numbers from <see cref="Minimum"/> to <see cref="Maximum"/>, told apart to
/// <see cref="Precision"/> decimal digits (a value is scaled by 10^precision and rounded down; finer differences
/// are settled by the client's re-check).
/// </summary>
/// <param name="minimum">The smallest value.</param>
/// <param name="maximum">The largest value.</param>
/// <param name="precision">Decimal digits after the point the tree tells apart: 0 to 18.</param>
public sealed class DecimalRangeQueryOptions(decimal minimum, decimal maximum, int precision) : RangeQueryOptions
{
    /// <summary>The smallest value.</summary>
    public decimal Minimum { get; } = minimum;

    /// <summary>The largest value.</summary>
    public decimal Maximum { get; } = maximum;

    /// <summary>Decimal digits after the point the tree tells apart.</summary>
    public int Precision { get; } = precision;

    internal override RangeDomain CreateDomain()
    {
        if (Precision is < 0 or > 18)
        {
            throw new ArgumentException("the precision must be 0 to 18 digits.");
        }

        decimal scale = 1;
        for (int i = 0; i < Precision; i++)
        {
            scale *= 10;
        }

        return new(RangeValueType.Decimal, Minimum, Maximum, scale, Sparsity, TrimFactor, FormattableString.Invariant($"dec:{Canonical(Minimum)}:{Canonical(Maximum)}:p{Precision}"));
    }

    // One text per value: 1m and 1.00m declare the same domain, so they must give the same tokens.
    private static string Canonical(decimal value) => value.ToString("G29", System.Globalization.CultureInfo.InvariantCulture);
}

/// <summary>
/// Range queries on a path holding ISO 8601 date-time strings with an offset (as System.Text.Json and Newtonsoft
/// write a <see cref="DateTimeOffset"/> or a UTC <see cref="DateTime"/>), compared as instants, told apart to
/// <see cref="Resolution"/>. A string without an offset, or in another shape, is refused on write.
/// </summary>
/// <param name="minimum">The earliest instant.</param>
/// <param name="maximum">The latest instant.</param>
public sealed class DateTimeRangeQueryOptions(DateTimeOffset minimum, DateTimeOffset maximum) : RangeQueryOptions
{
    /// <summary>The earliest instant.</summary>
    public DateTimeOffset Minimum { get; } = minimum;

    /// <summary>The latest instant.</summary>
    public DateTimeOffset Maximum { get; } = maximum;

    /// <summary>The smallest difference the tree tells apart (finer ones are settled by the re-check). Default one second.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not positive.</exception>
    public TimeSpan Resolution
    {
        get;
        init
        {
            ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(value, TimeSpan.Zero);
            field = value;
        }
    } = TimeSpan.FromSeconds(1);

    internal override RangeDomain CreateDomain() =>
        new(RangeValueType.DateTime, Minimum.UtcTicks, Maximum.UtcTicks, 1m / Resolution.Ticks, Sparsity, TrimFactor, FormattableString.Invariant($"time:{Minimum.UtcTicks}:{Maximum.UtcTicks}:r{Resolution.Ticks}"));
}

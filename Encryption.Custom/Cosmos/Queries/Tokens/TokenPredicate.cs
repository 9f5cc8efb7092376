using System.Globalization;
using System.Text;
using Encryption.Custom.Json.JTokens;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Tokens;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Cosmos.Queries.Tokens;

/// <summary>
/// One range or prefix condition on a token path, as the query states it (docs/queries.md "Range and prefix
/// queries"): what the service is asked for (the tokens of its cover or prefix) and what the client checks on each
/// decrypted row, so the rows an application receives are exactly those the condition holds for.
/// </summary>
/// <param name="Rule">The path's declaration.</param>
/// <param name="Low">The lower bound (value units; ticks for date-times), or <see langword="null"/>.</param>
/// <param name="LowInclusive">Whether the lower bound itself matches.</param>
/// <param name="High">The upper bound, or <see langword="null"/>.</param>
/// <param name="HighInclusive">Whether the upper bound itself matches.</param>
/// <param name="Prefix">For a prefix condition, the prefix as written.</param>
/// <param name="IgnoreCase">For a prefix condition, whether it ignores case (<c>STARTSWITH(x, p, true)</c>).</param>
internal sealed record TokenPredicate(QueryTokenRule Rule, decimal? Low, bool LowInclusive, decimal? High, bool HighInclusive, string? Prefix, bool IgnoreCase)
{
    /// <summary>The path the condition reads, parsed (top-level, or a nested selector outside arrays).</summary>
    public RulePath Path { get; } = SelectorRules.Parse(Rule.Path);

    /// <summary>Whether the decrypted <paramref name="document"/>'s value at <see cref="Path"/> satisfies the condition.</summary>
    public bool Matches(JObject document) => Matches(JQueryTokens.ValueAt(document, Path));

    /// <summary>Whether the decrypted <paramref name="value"/> satisfies the condition, as the service compares plaintext.</summary>
    public bool Matches(JToken? value)
    {
        if (Prefix is not null)
        {
            return value is { Type: JTokenType.String }
                && ((string)value!).StartsWith(Prefix, IgnoreCase ? StringComparison.OrdinalIgnoreCase : StringComparison.Ordinal);
        }

        decimal? number = ValueOf(value);
        return number is { } v
            && (Low is not { } low || (LowInclusive ? v >= low : v > low))
            && (High is not { } high || (HighInclusive ? v <= high : v < high));
    }

    // The value in the bounds' units: a number for numeric paths, the instant in ticks for date-time paths.
    private decimal? ValueOf(JToken? value)
    {
        if (Rule.Range!.Type == RangeValueType.DateTime)
        {
            return value is { Type: JTokenType.String } && IsoDateTime.TryParseUtcTicks(Encoding.UTF8.GetBytes((string)value!), out long ticks) ? ticks : null;
        }

        try
        {
            return value?.Type switch
            {
                JTokenType.Integer => Convert.ToDecimal(((JValue)value).Value, CultureInfo.InvariantCulture),
                JTokenType.Float => Convert.ToDecimal(((JValue)value).Value, CultureInfo.InvariantCulture),
                _ => null,
            };
        }
        catch (OverflowException)
        {
            return null;
        }
    }
}

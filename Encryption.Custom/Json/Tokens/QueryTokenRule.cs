// One path's query-token declaration, compiled (docs/queries.md "Range and prefix queries"):
//   token = base64url(HMAC-SHA256(queryTokenKey, header ‖ kind ‖ u16be(level) ‖ encoding)[0..TokenLength])
//   header = "EC-QT-v1" ‖ LP16(path) ‖ LP16(descriptor)
// The header makes every path (and every declaration of it) its own keyed function under the DEK's query-token
// sub-key, so equal values in two paths, or under two declarations, never share a token.
using System.Buffers.Binary;
using System.Text;
using Encryption.Custom.Json.Text;

namespace Encryption.Custom.Json.Tokens;

/// <summary>What kind of token an HMAC input is for (its first byte after the header).</summary>
internal enum QueryTokenKind : byte
{
    /// <summary>A node of a range path's tree: level, then the node index as u64be.</summary>
    Range = (byte)'R',

    /// <summary>A prefix of a prefix path's normalized text: the length in runes, then its UTF-8.</summary>
    Prefix = (byte)'P',

    /// <summary>A padding slot of a prefix path: the slot number, then the whole normalized text (so a reader can recompute it).</summary>
    Padding = (byte)'p',
}

/// <summary>A compiled range or prefix declaration of one path.</summary>
internal sealed class QueryTokenRule
{
    /// <summary>The name of the reserved top-level member that holds the tokens.</summary>
    public const string MemberName = "_q";

    /// <summary><see cref="MemberName"/> as UTF-8.</summary>
    public static ReadOnlySpan<byte> MemberNameUtf8 => "_q"u8;

    /// <summary>The shortest and longest token, in bytes before base64url.</summary>
    public const int MinTokenLength = 8, MaxTokenLength = 16;

    private readonly byte[] _header;

    private QueryTokenRule(string path, string descriptor, int tokenLength, RangeDomain? range, int minRunes, int maxRunes, bool ignoreCase)
    {
        if (tokenLength is < MinTokenLength or > MaxTokenLength)
        {
            throw new ArgumentException($"the token length must be {MinTokenLength} to {MaxTokenLength} bytes.");
        }

        Path = path;
        Descriptor = descriptor;
        TokenLength = tokenLength;
        Range = range;
        MinRunes = minRunes;
        MaxRunes = maxRunes;
        IgnoreCase = ignoreCase;
        byte[] pathBytes = Encoding.UTF8.GetBytes(path);
        byte[] descriptorBytes = Encoding.UTF8.GetBytes(descriptor);
        _header = new byte[8 + 2 + pathBytes.Length + 2 + descriptorBytes.Length];
        "EC-QT-v1"u8.CopyTo(_header);
        BinaryPrimitives.WriteUInt16BigEndian(_header.AsSpan(8), (ushort)pathBytes.Length);
        pathBytes.CopyTo(_header, 10);
        BinaryPrimitives.WriteUInt16BigEndian(_header.AsSpan(10 + pathBytes.Length), (ushort)descriptorBytes.Length);
        descriptorBytes.CopyTo(_header, 12 + pathBytes.Length);
        QuotedPath = JsonStringEscaper.QuotedToArray(path);
        PathUtf8 = pathBytes;
    }

    /// <summary><see cref="Path"/> as UTF-8.</summary>
    public byte[] PathUtf8 { get; }

    /// <summary>The path, for example <c>/dob</c>: also the tokens' key in <c>_q</c>.</summary>
    public string Path { get; }

    /// <summary>The JSON string of <see cref="Path"/>, quoted and escaped.</summary>
    public byte[] QuotedPath { get; }

    /// <summary>The canonical text of the declaration (for example <c>range:int:-5:100:s2:t0</c>).</summary>
    public string Descriptor { get; }

    /// <summary>Bytes per token before base64url.</summary>
    public int TokenLength { get; }

    /// <summary>Characters per token in base64url without padding.</summary>
    public int EncodedLength => ((TokenLength * 4) + 2) / 3;

    /// <summary>The range declaration, or <see langword="null"/> for a prefix path.</summary>
    public RangeDomain? Range { get; }

    /// <summary>Whether this is a prefix path.</summary>
    public bool IsPrefix => Range is null;

    /// <summary>The shortest prefix with a token, in runes (prefix paths).</summary>
    public int MinRunes { get; }

    /// <summary>The longest prefix with a token, in runes (prefix paths).</summary>
    public int MaxRunes { get; }

    /// <summary>Whether prefixes are case-folded (prefix paths).</summary>
    public bool IgnoreCase { get; }

    /// <summary>The tokens every document with a value holds: the stored levels, or one per prefix length (padded).</summary>
    public int TokenCount => Range?.StoredLevelCount ?? (MaxRunes - MinRunes + 1);

    /// <summary>The fixed part of every token's input.</summary>
    public ReadOnlySpan<byte> Header => _header;

    /// <summary>A range rule.</summary>
    public static QueryTokenRule ForRange(string path, RangeDomain domain, int tokenLength) =>
        new(path, FormattableString.Invariant($"range:{domain.Descriptor}:s{domain.Sparsity}:t{domain.TrimFactor}:l{tokenLength}"), tokenLength, domain, 0, 0, false);

    /// <summary>A prefix rule.</summary>
    public static QueryTokenRule ForPrefix(string path, int minRunes, int maxRunes, bool ignoreCase, int tokenLength)
    {
        if (minRunes < 1 || maxRunes < minRunes || maxRunes > 64)
        {
            throw new ArgumentException("the prefix lengths must satisfy 1 <= minimum <= maximum <= 64 runes.");
        }

        return new(path, FormattableString.Invariant($"prefix:nfc:{(ignoreCase ? "fold" : "case")}:{minRunes}:{maxRunes}:l{tokenLength}"), tokenLength, null, minRunes, maxRunes, ignoreCase);
    }
}

using System.Buffers;
using System.Text;
using Encryption.Custom.Diagnostics;
using Encryption.Custom.Json.Text;

namespace Encryption.Custom.Json.WireFormat;

/// <summary>
/// The parts of the extended format (<c>_ef</c> 101, wire-format.md "Format 101") that differ from format 3: the
/// feature list <c>_ev</c> and the top-level anchor <c>_ex</c>.
/// </summary>
internal static class ExtendedEnvelope
{
    /// <summary>The feature-list version this library writes and reads.</summary>
    public const int FeaturesVersion = 1;

    /// <summary>The feature of nested selectors: <c>_ep</c> may list paths below the top level, and <c>[]</c>.</summary>
    public const string SelectorsFeature = "sel";

    /// <summary>Bound cells (a cell's MAC covers its document and selector): understood by both processors.</summary>
    public const string BindFeature = "bind";

    /// <summary>The document commitment held in the anchor (wire-format.md "Document commitment").</summary>
    public const string CommitFeature = "commit";

    /// <summary>Query tokens in the reserved top-level member <c>_q</c> (docs/wire-format.md "Query tokens").</summary>
    public const string QueryTokensFeature = "qt";

    /// <summary>The document id is encrypted and stored in the URL-safe alphabet (docs/wire-format.md "Encrypted ids and partition keys").</summary>
    public const string IdFeature = "id";

    /// <summary>The first byte of the anchor: no cell starts with it (cells start with a type marker, then 0x01).</summary>
    public const byte AnchorTag = 0xEC;

    /// <summary>The anchor layout version.</summary>
    public const byte AnchorVersion = 0x01;

    /// <summary>The commitment slot: 32 bytes, zero while <see cref="CommitFeature"/> is off.</summary>
    public const int CommitmentLength = 32;

    /// <summary>The anchor's decoded length: tag, version, commitment. Shorter than any cell.</summary>
    public const int AnchorLength = 2 + CommitmentLength;

    /// <summary>The anchor path as <c>_ep</c> lists it, first.</summary>
    public const string AnchorPath = "/" + EncryptionEnvelope.AnchorName;

    /// <summary>The anchor value without a commitment, base64 (what every document written today carries).</summary>
    public static string AnchorBase64 { get; } = Convert.ToBase64String([AnchorTag, AnchorVersion, .. new byte[CommitmentLength]]);

    /// <summary>
    /// The constant part of what a write appends before the root's closing brace, up to the first listed path:
    /// format 3: <c>"_ei":{"_ef":3,"_en":…,"_ea":…,"_ed":null,"_ep":[</c>; format 101 adds the anchor property before
    /// it, <c>_ev</c> inside it, and lists the anchor first.
    /// </summary>
    /// <param name="dataEncryptionKeyId">The key id (<c>_en</c>).</param>
    /// <param name="encryptionAlgorithm">The algorithm (<c>_ea</c>).</param>
    /// <param name="extended">Whether the format is 101 (else 3, and <paramref name="features"/> is ignored).</param>
    /// <param name="features">The critical features a format 101 document lists; <c>sel</c> is also listed when no other is.</param>
    public static byte[] CreatePrefix(string dataEncryptionKeyId, string encryptionAlgorithm, bool extended, ExtendedFeatureSet features)
    {
        bool selectors = (features & ExtendedFeatureSet.Selectors) != 0;
        bool bind = (features & ExtendedFeatureSet.Bind) != 0;
        bool commit = (features & ExtendedFeatureSet.Commit) != 0;
        bool queryTokens = (features & ExtendedFeatureSet.QueryTokens) != 0;
        bool id = (features & ExtendedFeatureSet.Id) != 0;
        var prefix = new ArrayBufferWriter<byte>();
        if (extended)
        {
            prefix.Write("\"_ex\":\""u8);
            prefix.Write(Encoding.ASCII.GetBytes(AnchorBase64));
            prefix.Write("\","u8);
        }

        prefix.Write(extended ? "\"_ei\":{\"_ef\":101,\"_en\":"u8 : "\"_ei\":{\"_ef\":3,\"_en\":"u8);
        prefix.Write(JsonStringEscaper.QuotedToArray(dataEncryptionKeyId));
        prefix.Write(",\"_ea\":"u8);
        prefix.Write(JsonStringEscaper.QuotedToArray(encryptionAlgorithm));
        if (extended)
        {
            prefix.Write(",\"_ev\":{\"v\":1,\"crit\":["u8);
            // "sel" when nothing else is named: a plan without another feature is extended only for its selectors.
            bool sel = selectors || !(bind || queryTokens || id);
            prefix.Write(sel && bind ? "\"sel\",\"bind\""u8 : bind ? "\"bind\""u8 : sel ? "\"sel\""u8 : default);
            if (commit)
            {
                prefix.Write(",\"commit\""u8);
            }

            if (queryTokens)
            {
                prefix.Write(sel || bind ? ",\"qt\""u8 : "\"qt\""u8);
            }

            if (id)
            {
                prefix.Write(sel || bind || queryTokens ? ",\"id\""u8 : "\"id\""u8);
            }


            prefix.Write("]}"u8);
        }

        prefix.Write(",\"_ed\":null,\"_ep\":["u8);
        if (extended)
        {
            prefix.Write("\"/_ex\""u8);
        }

        return prefix.WrittenSpan.ToArray();
    }

    /// <summary>Where the anchor's base64 starts in a format 101 prefix (after <c>"_ex":"</c>).</summary>
    public const int AnchorValueOffset = 7;

    /// <summary>The anchor's base64 length: 34 bytes, 48 characters (with or without a commitment).</summary>
    public const int AnchorBase64Length = 48;

    /// <summary>Writes the base64 of <c>EC 01 ‖ commitment</c> (exactly <see cref="AnchorBase64Length"/> bytes) to <paramref name="destination"/>.</summary>
    public static void WriteCommittedAnchor(ReadOnlySpan<byte> commitment, Span<byte> destination)
    {
        Span<byte> anchor = stackalloc byte[AnchorLength];
        anchor[0] = AnchorTag;
        anchor[1] = AnchorVersion;
        commitment[..CommitmentLength].CopyTo(anchor[2..]);
        System.Buffers.Text.Base64.EncodeToUtf8(anchor, destination, out _, out _);
    }

    /// <summary>
    /// Decodes a committed anchor (unescaped base64 content) into its commitment; false when it is not
    /// <c>EC 01</c> followed by 32 bytes.
    /// </summary>
    public static bool TryReadCommittedAnchor(ReadOnlySpan<byte> base64, Span<byte> commitment)
    {
        Span<byte> anchor = stackalloc byte[AnchorLength + 2];
        if (base64.Length != AnchorBase64Length
            || System.Buffers.Text.Base64.DecodeFromUtf8(base64, anchor, out int consumed, out int written) != OperationStatus.Done
            || consumed != base64.Length || written != AnchorLength || anchor[0] != AnchorTag || anchor[1] != AnchorVersion)
        {
            return false;
        }

        anchor.Slice(2, CommitmentLength).CopyTo(commitment);
        return true;
    }

    /// <summary>The anchor value as stored, quoted (what the stream reader compares an unescaped token with).</summary>
    public static ReadOnlySpan<byte> AnchorToken => s_anchorToken;

    private static readonly byte[] s_anchorToken = Encoding.ASCII.GetBytes("\"" + AnchorBase64 + "\"");

    /// <summary>Checks the <c>v</c> of <c>_ev</c>.</summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.UnsupportedFormat"/> for a version this library does not know.</exception>
    public static void CheckFeaturesVersion(long version)
    {
        if (version != FeaturesVersion)
        {
            throw new EncryptionException(
                EncryptionErrorKind.UnsupportedFormat,
                $"The document's encryption metadata has feature-list version {version.ToString(System.Globalization.CultureInfo.InvariantCulture)} ('_ev.v'); this version of the library reads version {FeaturesVersion} only.");
        }
    }

    /// <summary>
    /// Checks one entry of <c>_ev.crit</c>, a feature the reader must understand: <see cref="SelectorsFeature"/>,
    /// <see cref="BindFeature"/>, <see cref="CommitFeature"/>, <see cref="QueryTokensFeature"/> and <see cref="IdFeature"/> are understood (each reader verifies what it accepts);
    /// anything else is unknown and refused rather than read without the feature's checks.
    /// </summary>
    /// <returns>The feature.</returns>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.UnsupportedFormat"/>.</exception>
    public static ExtendedFeatureSet CheckCriticalFeature(ReadOnlySpan<byte> utf8Feature)
    {
        if (utf8Feature.SequenceEqual("sel"u8))
        {
            return ExtendedFeatureSet.Selectors;
        }

        if (utf8Feature.SequenceEqual("bind"u8))
        {
            return ExtendedFeatureSet.Bind;
        }

        if (utf8Feature.SequenceEqual("commit"u8))
        {
            return ExtendedFeatureSet.Commit;
        }

        if (utf8Feature.SequenceEqual("qt"u8))
        {
            return ExtendedFeatureSet.QueryTokens;
        }

        if (utf8Feature.SequenceEqual("id"u8))
        {
            return ExtendedFeatureSet.Id;
        }

        string feature = UntrustedText.Shorten(Encoding.UTF8.GetString(utf8Feature));
        throw new EncryptionException(
            EncryptionErrorKind.UnsupportedFormat,
            $"The document requires the encryption feature '{feature}' ('_ev.crit'), which this version of the library does not know: it is refused rather than read without that feature's checks.");
    }

    /// <summary>Checks that a feature list with <c>commit</c> also has <c>bind</c> (the commitment reuses D).</summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.UnsupportedFormat"/>.</exception>
    public static void CheckCommitNeedsBind(ExtendedFeatureSet features)
    {
        if ((features & ExtendedFeatureSet.Commit) != 0 && (features & ExtendedFeatureSet.Bind) == 0)
        {
            throw new EncryptionException(
                EncryptionErrorKind.UnsupportedFormat,
                "The document requires the encryption feature 'commit' ('_ev.crit') without 'bind', which it needs (the commitment covers the binding's document digest): it is refused.");
        }
    }

    /// <summary>
    /// Checks that <c>_ep</c> lists the id exactly when <c>_ev.crit</c> requires <c>id</c>: the id's stored alphabet
    /// is the feature's, so a format 3 document (or one without the feature) that lists it is refused, and so is the
    /// feature without the listed id.
    /// </summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.UnsupportedFormat"/>.</exception>
    public static void CheckIdFeature(ExtendedFeatureSet features, bool listsId)
    {
        bool required = (features & ExtendedFeatureSet.Id) != 0;
        if (listsId != required)
        {
            throw new EncryptionException(
                EncryptionErrorKind.UnsupportedFormat,
                listsId
                    ? "The document's encryption metadata lists the id ('/id' in '_ep') without the feature 'id' in '_ev.crit', which an encrypted id needs: it is refused."
                    : "The document requires the encryption feature 'id' ('_ev.crit') but '_ep' does not list '/id': it is refused.");
        }
    }

    /// <summary>The refusal when a document's commitment does not verify.</summary>
    public static EncryptionException CommitmentMismatch(string keyId) =>
        new(
            EncryptionErrorKind.CellBindingMismatch,
            "The document commitment ('_ex') does not match the document's cells: a cell was removed, set to null or put back from another version of this document, a listed path was dropped from '_ep', values were reordered, or the anchor was changed. The document is refused as tampered with.",
            keyId);

    /// <summary>Whether <paramref name="base64"/> (unescaped string content) is the anchor this library writes.</summary>
    public static bool IsAnchor(ReadOnlySpan<byte> base64) => base64.SequenceEqual(s_anchorToken.AsSpan(1, s_anchorToken.Length - 2));
}

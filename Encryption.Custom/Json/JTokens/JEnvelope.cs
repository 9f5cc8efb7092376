using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Json.JTokens;

/// <summary>The <c>_ei</c> metadata of a parsed document (wire-format.md §3.1), read with the shared rules.</summary>
internal sealed class JEnvelope
{
    private JEnvelope(EnvelopeFormat format, string keyId, string algorithm, List<string> paths, string? encryptedData, DocumentSelectors? selectors, bool bound)
    {
        Bound = bound;
        Selectors = selectors;
        Format = format;
        KeyId = keyId;
        Algorithm = algorithm;
        Paths = paths;
        EncryptedData = encryptedData;
    }

    public EnvelopeFormat Format { get; }

    public string KeyId { get; }

    public string Algorithm { get; }

    /// <summary>The top-level <c>_ep</c> paths, each "/name" (format 101: without the anchor and the nested selectors).</summary>
    public List<string> Paths { get; }

    /// <summary>Format 101: the nested selectors <c>_ep</c> lists, or null.</summary>
    public DocumentSelectors? Selectors { get; }

    /// <summary>Format 101 with <c>bind</c> in <c>_ev.crit</c>: every randomized cell is bound to this document.</summary>
    public bool Bound { get; }

    /// <summary>The format 2 blob (base64), or null.</summary>
    public string? EncryptedData { get; }

    /// <summary>Reads the metadata of <paramref name="document"/>.</summary>
    /// <returns><see langword="null"/> when the document is not encrypted (no <c>_ei</c>, or <c>_ei: null</c>).</returns>
    /// <exception cref="EncryptionException">Malformed or unsupported metadata.</exception>
    public static JEnvelope? Read(JObject document)
    {
        if (!document.TryGetValue(EncryptionEnvelope.PropertyName, out JToken? value) || value.Type == JTokenType.Null)
        {
            return null;
        }

        if (value is not JObject envelope)
        {
            throw JsonErrors.CreateMalformedEnvelope("it must be an object.");
        }

        JToken? formatToken = envelope[EncryptionEnvelope.FormatVersionName];
        if (formatToken is null)
        {
            throw JsonErrors.CreateMalformedEnvelope("'_ef' is missing.");
        }

        if (formatToken.Type != JTokenType.Integer || ((JValue)formatToken).Value is not long formatVersion)
        {
            throw JsonErrors.CreateMalformedEnvelope("'_ef' must be an integer.");
        }

        // The format first: a future format is unsupported whatever the rest of its metadata looks like.
        EncryptionEnvelope.CheckFormatVersion(formatVersion);

        string keyId = ReadString(envelope, EncryptionEnvelope.KeyIdName);
        if (keyId.Length == 0)
        {
            throw JsonErrors.CreateMalformedEnvelope("'_en' must not be empty.");
        }

        string algorithm = ReadString(envelope, EncryptionEnvelope.AlgorithmName);
        EnvelopeFormat format = EncryptionEnvelope.ResolveFormat(formatVersion, algorithm);
        bool extended = format == EnvelopeFormat.Extended;
        var features = ExtendedFeatureSet.None;
        if (extended)
        {
            // The stream reader's rules, on the same bytes.
            JToken featuresToken = envelope[EncryptionEnvelope.FeaturesName] ?? throw JsonErrors.CreateMalformedEnvelope("'_ev' is missing for format version 101.");
            features = Streaming.ExtendedFeatures.Read(System.Text.Encoding.UTF8.GetBytes(featuresToken.ToString(Newtonsoft.Json.Formatting.None)));
            ExtendedEnvelope.CheckCommitNeedsBind(features);
        }

        string? encryptedData = null;
        JToken? dataToken = envelope[EncryptionEnvelope.EncryptedDataName];
        if (dataToken is not null && dataToken.Type != JTokenType.Null)
        {
            encryptedData = dataToken.Type == JTokenType.String
                ? (string)dataToken!
                : throw JsonErrors.CreateMalformedEnvelope("'_ed' must be a string or null.");
        }

        var paths = new List<string>();
        var nested = new List<string>();
        JToken? pathsToken = envelope[EncryptionEnvelope.PathsName];
        if (pathsToken is null)
        {
            if (format is EnvelopeFormat.PerProperty or EnvelopeFormat.Extended)
            {
                throw JsonErrors.CreateMalformedEnvelope("'_ep' is missing.");
            }
        }
        else if (pathsToken.Type != JTokenType.Null || extended)
        {
            ReadPaths(pathsToken, paths, extended ? nested : null);
        }

        ExtendedEnvelope.CheckIdFeature(features, paths.Contains(IdCellText.Path));
        DocumentSelectors? selectors = null;
        byte[]? commitment = null;
        if (extended)
        {
            if (nested.Count > 0 && (features & ExtendedFeatureSet.Selectors) == 0)
            {
                throw JsonErrors.CreateMalformedEnvelope("'_ep' lists nested selectors but '_ev.crit' does not require the feature 'sel'.");
            }

            selectors = nested.Count > 0 ? DocumentSelectors.Compile(nested) : null;
            if (selectors is not null && paths.Any(p => selectors.Root.FindChild(p[1..]) >= 0))
            {
                throw JsonErrors.CreateMalformedEnvelope("'_ep' lists a top-level path that nested selectors start at: selectors must not contain one another.");
            }

            commitment = CheckAnchor(document, committed: (features & ExtendedFeatureSet.Commit) != 0);
            if ((features & ExtendedFeatureSet.QueryTokens) != 0 && document[Tokens.QueryTokenRule.MemberName] is not JObject)
            {
                throw JsonErrors.CreateMalformedEnvelope("'_ev.crit' requires query tokens ('qt') but the document does not have exactly one '_q' member.");
            }
        }

        if (format == EnvelopeFormat.LegacyBlob && encryptedData is null)
        {
            throw JsonErrors.CreateMalformedEnvelope("'_ed' is missing for format version 2.");
        }

        return new JEnvelope(format, keyId, algorithm, paths, encryptedData, selectors, (features & ExtendedFeatureSet.Bind) != 0) { Commitment = commitment, Nested = nested, HasQueryTokens = (features & ExtendedFeatureSet.QueryTokens) != 0 };
    }

    /// <summary>
    /// Builds the metadata object this library writes for <paramref name="plan"/>: format 3, or 101 when the plan is
    /// extended (then <paramref name="paths"/> follow the anchor), with the plan's features (<c>commit</c> only when
    /// <paramref name="commit"/>).
    /// </summary>
    public static JObject Create(EncryptionPlan plan, List<string> paths, bool commit)
    {
        string keyId = plan.DataEncryptionKeyId;
        string algorithm = plan.EncryptionAlgorithm;
        bool extended = plan.IsExtendedFormat;
        bool bind = plan.IsBound;
        bool queryTokens = plan.HasQueryTokens;

        // "sel" when nothing else is named: a plan without another feature is extended only for its selectors.
        bool selectors = plan.NestedSelectors.ChildCount > 0 || !(bind || queryTokens || plan.EncryptsId);
        var envelope = new JObject
        {
            [EncryptionEnvelope.FormatVersionName] = extended ? EncryptionEnvelope.ExtendedFormatVersion : EncryptionEnvelope.CurrentFormatVersion,
            [EncryptionEnvelope.KeyIdName] = keyId,
            [EncryptionEnvelope.AlgorithmName] = algorithm,
        };

        if (extended)
        {
            JArray critical = [];
            if (selectors)
            {
                critical.Add(ExtendedEnvelope.SelectorsFeature);
            }

            if (bind)
            {
                critical.Add(ExtendedEnvelope.BindFeature);
            }

            if (commit)
            {
                critical.Add(ExtendedEnvelope.CommitFeature);
            }

            if (queryTokens)
            {
                critical.Add(ExtendedEnvelope.QueryTokensFeature);
            }

            if (plan.EncryptsId)
            {
                critical.Add(ExtendedEnvelope.IdFeature);
            }

            envelope[EncryptionEnvelope.FeaturesName] = new JObject { ["v"] = ExtendedEnvelope.FeaturesVersion, ["crit"] = critical };
        }

        envelope[EncryptionEnvelope.EncryptedDataName] = null;
        envelope[EncryptionEnvelope.PathsName] = extended ? new JArray([ExtendedEnvelope.AnchorPath, .. paths]) : new JArray(paths);
        return envelope;
    }

    /// <summary>The document commitment the anchor holds when the document requires <c>commit</c>, else <see langword="null"/>.</summary>
    public byte[]? Commitment { get; private init; }

    /// <summary>Whether <c>_ev.crit</c> requires <c>qt</c>: <c>_q</c> holds query tokens (removed on read, verified by strict readers).</summary>
    public bool HasQueryTokens { get; private init; }

    /// <summary>The nested selectors <c>_ep</c> lists (format 101), as listed.</summary>
    public IReadOnlyList<string> Nested { get; private init; } = [];

    // Format 101: the top-level _ex must be exactly the anchor this library writes; with 'commit', the tag and
    // version followed by a commitment, which is returned for the decryption to verify.
    private static byte[]? CheckAnchor(JObject document, bool committed)
    {
        if (!document.TryGetValue(EncryptionEnvelope.AnchorName, out JToken? anchor))
        {
            throw JsonErrors.CreateMalformedEnvelope("the anchor property '_ex' that format version 101 requires is missing.");
        }

        if (committed)
        {
            byte[] commitment = new byte[ExtendedEnvelope.CommitmentLength];
            if (anchor.Type != JTokenType.String || !ExtendedEnvelope.TryReadCommittedAnchor(System.Text.Encoding.UTF8.GetBytes((string)anchor!), commitment))
            {
                throw JsonErrors.CreateMalformedEnvelope("the anchor property '_ex' does not hold an anchor with a document commitment.");
            }

            return commitment;
        }

        if (anchor.Type != JTokenType.String || !string.Equals((string)anchor!, ExtendedEnvelope.AnchorBase64, StringComparison.Ordinal))
        {
            throw JsonErrors.CreateMalformedEnvelope("the anchor property '_ex' does not hold the anchor value of format version 101.");
        }

        return null;
    }

    private static string ReadString(JObject envelope, string name)
    {
        JToken? token = envelope[name];
        if (token is null)
        {
            throw JsonErrors.CreateMalformedEnvelope($"'{name}' is missing.");
        }

        return token.Type == JTokenType.String ? (string)token! : throw JsonErrors.CreateMalformedEnvelope($"'{name}' must be a string.");
    }

    // nested: null outside format 101; else receives the nested selectors, and the anchor must come first.
    private static void ReadPaths(JToken pathsToken, List<string> paths, List<string>? nested)
    {
        if (pathsToken is not JArray array)
        {
            throw JsonErrors.CreateMalformedEnvelope("'_ep' must be an array of paths.");
        }

        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (JToken item in array)
        {
            if (item.Type != JTokenType.String)
            {
                throw JsonErrors.CreateMalformedEnvelope("'_ep' must be an array of paths.");
            }

            string path = (string)item!;
            if (nested is not null)
            {
                bool isAnchor = string.Equals(path, ExtendedEnvelope.AnchorPath, StringComparison.Ordinal);
                if (isAnchor != (seen.Count == 0))
                {
                    throw JsonErrors.CreateMalformedEnvelope(isAnchor ? "'_ep' lists the anchor '/_ex' more than once." : "format version 101 must list the anchor '/_ex' first in '_ep'.");
                }

                if (isAnchor || (path.Length > 1 && path[0] == '/' && path.IndexOf('/', 1) >= 0))
                {
                    seen.Add(path);
                    if (!isAnchor)
                    {
                        nested.Add(path);
                    }

                    continue;
                }
            }

            if (path.Length < 2 || path[0] != '/' || path.IndexOf('/', 1) >= 0)
            {
                throw JsonErrors.CreateMalformedEnvelope("'_ep' must list top-level paths such as '/name'.");
            }

            if (!seen.Add(path))
            {
                throw JsonErrors.CreateMalformedEnvelope("'_ep' lists a path more than once.");
            }

            paths.Add(path);
        }

        if (nested is not null && seen.Count == 0)
        {
            throw JsonErrors.CreateMalformedEnvelope("format version 101 must list the anchor '/_ex' first in '_ep'.");
        }
    }
}

using System.Buffers;
using System.Diagnostics;
using System.Text;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.Tokens;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Rules;

/// <summary>
/// <see cref="EncryptionOptions"/> validated (wire-format.md §3.4) and compiled for the hot path: the property
/// names to match as UTF-8, and the constant part of the <c>_ei</c> metadata pre-serialized.
/// </summary>
/// <remarks>Immutable once created; shared by every thread that encrypts with the same options.</remarks>
internal sealed partial class EncryptionPlan
{
    private readonly IEnumerable<string>? _source;
    private readonly string[] _paths;
    private readonly Utf8NameTable _names;
    private readonly byte[] _envelopePrefix;
    private readonly byte[][] _pathTokens;
    private readonly IReadOnlyCollection<string>? _deterministicSource;

    // Per path: the deterministic IV context prefix, or null when the path is encrypted randomized.
    private readonly byte[]?[] _deterministicPrefixes;

    // The paths' property names ignoring case: the case-variant check is one hash lookup, not a loop over the paths.
    private readonly CaseInsensitiveNameIndex _namesIgnoringCase;

    // The paths' property names as .NET strings (ordinal), for callers that hold names as strings (the Newtonsoft processor).
    private readonly Dictionary<string, int> _namesByString;

    // The paths as given (for IsCompiledFrom); _paths holds the top-level ones first, then the nested selectors.
    private readonly string[] _sourceOrder;

    // Every path's text (top-level and nested) to its index.
    private readonly Dictionary<string, int> _pathIndexes;

    // The UTF-8 text of every path: the selector a bound cell's tag covers.
    private readonly byte[][] _selectors;

    // Every path parsed: its decoded segments, for whoever must find a path's one value in a parsed document.
    private readonly RulePath[] _rulePaths;

    private EncryptionPlan(in Options given, string[] sourceOrder, RulePath[] rulePaths, int topLevelCount, Utf8NameTable names, (SelectorNode All, SelectorNode Nested) trees, QueryTokenRule?[]? queryTokens)
    {
        string[] paths = [.. rulePaths.Select(p => p.Text)];
        _queryTokens = queryTokens;
        _queryTokenSource = given.QueryTokens;
        (_queryTokenOffsets, QueryTokenBytes, QueryTokenMemberLength) = LayOutQueryTokens(queryTokens, paths.Length);

        Binding = given.Binding;
        _selectors = new byte[paths.Length][];
        _rulePaths = rulePaths;
        _sourceOrder = sourceOrder;
        _pathIndexes = new Dictionary<string, int>(paths.Length, StringComparer.Ordinal);
        for (int i = 0; i < paths.Length; i++)
        {
            _pathIndexes[paths[i]] = i;
        }

        TopLevelCount = topLevelCount;
        Selectors = trees.All;
        NestedSelectors = trees.Nested;
        EncryptsId = Array.IndexOf(paths, IdCellText.Path) is >= 0 and int idIndex && idIndex < topLevelCount;
        IsExtendedFormat = paths.Length > topLevelCount || given.Binding is not null || queryTokens is not null || EncryptsId;
        _deterministicSource = given.DeterministicPaths;
        _deterministicPrefixes = new byte[]?[paths.Length];
        DataEncryptionKeyId = given.DataEncryptionKeyId;
        EncryptionAlgorithm = given.EncryptionAlgorithm;
        _source = given.Paths;
        _paths = paths;
        _names = names;
        _pathTokens = new byte[paths.Length][];
        string[] propertyNames = new string[topLevelCount];
        _namesByString = new Dictionary<string, int>(topLevelCount, StringComparer.Ordinal);
        for (int i = 0; i < paths.Length; i++)
        {
            if (i < topLevelCount)
            {
                propertyNames[i] = paths[i][1..];
                _namesByString[propertyNames[i]] = i;
            }

            _selectors[i] = Encoding.UTF8.GetBytes(paths[i]);
            _pathTokens[i] = JsonStringEscaper.QuotedToArray(paths[i]);
            if (given.DeterministicPaths is not null && given.DeterministicPaths.Contains(paths[i]))
            {
                _deterministicPrefixes[i] = DeterministicIvContext.CreatePathPrefix(paths[i]);
            }
        }

        _namesIgnoringCase = new CaseInsensitiveNameIndex(propertyNames);

        _envelopePrefix = ExtendedEnvelope.CreatePrefix(given.DataEncryptionKeyId, given.EncryptionAlgorithm, IsExtendedFormat, Features(paths.Length > topLevelCount, given.Binding is not null, Commits, queryTokens is not null, EncryptsId));
        _commitOrder = SortBySelector(_selectors);
    }

    /// <summary>The DEK id to encrypt with.</summary>
    public string DataEncryptionKeyId { get; }

    /// <summary>The algorithm (always the current one).</summary>
    public string EncryptionAlgorithm { get; }

    /// <summary>The number of paths: the top-level ones (indexes 0 to <see cref="TopLevelCount"/> - 1), then the nested selectors.</summary>
    public int PathCount => _paths.Length;

    /// <summary>The number of top-level paths (a single property name each); <see cref="GetName"/> applies to these.</summary>
    public int TopLevelCount { get; }

    /// <summary>
    /// Every path as a tree (the root stands for the document; leaves carry the path index): the one compiled form
    /// that patch classification and whoever must place an arbitrary path against the plan walk.
    /// </summary>
    public SelectorNode Selectors { get; }

    /// <summary>
    /// The nested selectors as a tree (the root stands for the document; leaves carry the path index), empty when
    /// there are none: what the stream walk descends into.
    /// </summary>
    public SelectorNode NestedSelectors { get; }

    /// <summary>
    /// Whether documents are written in the extended format (<c>_ef</c> 101): only when a feature needs it, today
    /// nested selectors; otherwise format 3, which Microsoft's package reads.
    /// </summary>
    public bool IsExtendedFormat { get; }

    /// <summary>
    /// The container documents are bound to when this plan binds (randomized values become bound cells, wire-format.md
    /// "Bound cells"), else <see langword="null"/>. A bound plan always writes format 101.
    /// </summary>
    public BindingTarget? Binding { get; }

    /// <summary>Whether the values of randomized paths are written as bound cells.</summary>
    public bool IsBound => Binding is not null;

    /// <summary>The UTF-8 text of the path at <paramref name="index"/>: the selector its bound cells are bound to.</summary>
    public ReadOnlySpan<byte> GetSelector(int index) => _selectors[index];

    /// <summary>The longest UTF-8 property name among the paths.</summary>
    public int MaxNameLength { get; private init; }

    /// <summary>Validates and compiles the options.</summary>
    /// <param name="dataEncryptionKeyId">The DEK id.</param>
    /// <param name="encryptionAlgorithm">The algorithm.</param>
    /// <param name="pathsToEncrypt">The paths.</param>
    /// <param name="deterministicPaths">The paths among <paramref name="pathsToEncrypt"/> encrypted deterministically (a container policy's choice), or <see langword="null"/>.</param>
    /// <exception cref="EncryptionException">An option is invalid (<see cref="EncryptionErrorKind.InvalidOptions"/>).</exception>
    /// <param name="binding">The container to bind documents to, or <see langword="null"/> for unbound cells.</param>
    /// <param name="queryTokens">Per path in the plan's order (top-level first), its query-token declaration, or <see langword="null"/> for none.</param>
    public static EncryptionPlan Create(string? dataEncryptionKeyId, string? encryptionAlgorithm, IEnumerable<string>? pathsToEncrypt, IReadOnlyCollection<string>? deterministicPaths = null, BindingTarget? binding = null, IReadOnlyList<QueryTokenRule?>? queryTokens = null)
    {
        // Whitespace-only ids are rejected as Microsoft's package rejects them, so both libraries accept the same ids.
        if (string.IsNullOrWhiteSpace(dataEncryptionKeyId))
        {
            JsonErrors.ThrowInvalidOptions("The data encryption key id must not be empty or white space.");
        }

        if (string.IsNullOrEmpty(encryptionAlgorithm))
        {
            JsonErrors.ThrowInvalidOptions("The encryption algorithm must not be empty.", dataEncryptionKeyId);
        }

        if (encryptionAlgorithm == CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized)
        {
            JsonErrors.ThrowInvalidOptions(
                $"The algorithm '{encryptionAlgorithm}' (format version 2) can be decrypted but no longer written; use '{CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized}'.",
                dataEncryptionKeyId);
        }

        if (encryptionAlgorithm != CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized)
        {
            JsonErrors.ThrowInvalidOptions($"The encryption algorithm '{encryptionAlgorithm}' is not supported.", dataEncryptionKeyId);
        }

        if (!IsValidText(dataEncryptionKeyId))
        {
            JsonErrors.ThrowInvalidOptions("The data encryption key id is not valid UTF-16 text (it holds a lone surrogate).");
        }

        if (pathsToEncrypt is null)
        {
            JsonErrors.ThrowInvalidOptions("The paths to encrypt must be given.", dataEncryptionKeyId);
        }

        // One snapshot of the collection: whatever the caller passed (a list, a set) is enumerated once here, and
        // each path parsed once.
        string[] sourceOrder = [.. pathsToEncrypt];
        var topLevel = new List<RulePath>(sourceOrder.Length);
        var nested = new List<RulePath>();
        for (int i = 0; i < sourceOrder.Length; i++)
        {
            RulePath parsed = SelectorRules.Parse(sourceOrder[i]);
            if (parsed.Depth == 1)
            {
                topLevel.Add(parsed);
            }
            else if (nested.Count == SelectorRules.MaxNestedSelectors)
            {
                JsonErrors.ThrowInvalidPath(sourceOrder[i], $"at most {SelectorRules.MaxNestedSelectors} nested selectors may be listed.");
            }
            else
            {
                nested.Add(parsed);
            }
        }

        // Top-level paths first (index i is name i of the name table), then the nested selectors. The whole tree
        // refuses overlaps and case-only differences as it is built.
        RulePath[] rulePaths = [.. topLevel, .. nested];
        string[] paths = [.. rulePaths.Select(p => p.Text)];
        var tree = new SelectorTreeBuilder();
        var nestedTree = new SelectorTreeBuilder();
        var names = new Utf8NameTable();
        int maxNameLength = 0;
        for (int i = 0; i < rulePaths.Length; i++)
        {
            RulePath parsed = rulePaths[i];
            tree.Add(parsed, i);
            if (i < topLevel.Count)
            {
                byte[] name = Encoding.UTF8.GetBytes(parsed.PropertyName);
                names.Add(name);
                maxNameLength = Math.Max(maxNameLength, name.Length);
            }
            else
            {
                nestedTree.Add(parsed, i);
            }
        }

        if (deterministicPaths is not null)
        {
            foreach (string deterministic in deterministicPaths)
            {
                if (Array.IndexOf(paths, deterministic) < 0)
                {
                    JsonErrors.ThrowInvalidPath(deterministic, "it is marked deterministic but is not one of the paths to encrypt.");
                }
            }
        }

        CheckId(paths, deterministicPaths);
        QueryTokenRule?[]? tokens = CheckQueryTokens(queryTokens, paths, dataEncryptionKeyId);
        return new EncryptionPlan(new Options(dataEncryptionKeyId, encryptionAlgorithm, pathsToEncrypt, deterministicPaths, binding, queryTokens), sourceOrder, rulePaths, topLevel.Count, names, (tree.Build(), nestedTree.Build()), tokens) { MaxNameLength = maxNameLength };
    }

    /// <summary>Whether these are still the options the plan was compiled from (same references everywhere).</summary>
    public bool IsCompiledFrom(string? dataEncryptionKeyId, string? encryptionAlgorithm, IEnumerable<string>? pathsToEncrypt, IReadOnlyCollection<string>? deterministicPaths = null, BindingTarget? binding = null, IReadOnlyList<QueryTokenRule?>? queryTokens = null)
    {
        // Reference comparisons: a replaced string or collection element recompiles, so a path added to the same
        // collection after first use is never silently left in plaintext.
        if (!ReferenceEquals(dataEncryptionKeyId, DataEncryptionKeyId)
            || !ReferenceEquals(encryptionAlgorithm, EncryptionAlgorithm)
            || pathsToEncrypt is null
            || !ReferenceEquals(pathsToEncrypt, _source)
            || !ReferenceEquals(deterministicPaths, _deterministicSource)
            || !ReferenceEquals(binding, Binding)
            || !ReferenceEquals(queryTokens, _queryTokenSource))
        {
            return false;
        }

        if (pathsToEncrypt is IReadOnlyList<string> list)
        {
            // Lists and arrays (the common case) are compared by index: no enumerator, no allocation.
            if (list.Count != _sourceOrder.Length)
            {
                return false;
            }

            for (int i = 0; i < _sourceOrder.Length; i++)
            {
                if (!ReferenceEquals(list[i], _sourceOrder[i]))
                {
                    return false;
                }
            }

            return true;
        }

        int index = 0;
        foreach (string path in pathsToEncrypt)
        {
            if (index == _sourceOrder.Length || !ReferenceEquals(path, _sourceOrder[index]))
            {
                return false;
            }

            index++;
        }

        return index == _sourceOrder.Length;
    }

    /// <summary>
    /// Writes <c>"_ei":{...}</c> listing the paths whose flag in <paramref name="encrypted"/> is
    /// <see cref="EncryptedFlag"/>, in the order of the options.
    /// </summary>
    public void WriteEnvelope(IBufferWriter<byte> output, ReadOnlySpan<byte> encrypted)
    {
        WriteEnvelopeFrom(output, encrypted, 0);
    }

    private void WriteEnvelopeFrom(IBufferWriter<byte> output, ReadOnlySpan<byte> encrypted, int prefixStart)
    {
        Debug.Assert(encrypted.Length >= _paths.Length, "One flag per path.");
        output.Write(_envelopePrefix.AsSpan(prefixStart));
        bool first = !IsExtendedFormat;
        for (int i = 0; i < _pathTokens.Length; i++)
        {
            if (encrypted[i] != EncryptedFlag)
            {
                continue;
            }

            if (!first)
            {
                output.Write(","u8);
            }

            output.Write(_pathTokens[i]);
            first = false;
        }

        output.Write("]}"u8);
    }

    /// <summary>The length <see cref="WriteEnvelope(IBufferWriter{byte}, ReadOnlySpan{byte})"/> writes for the same flags.</summary>
    public int GetEnvelopeLength(ReadOnlySpan<byte> encrypted)
    {
        int length = _envelopePrefix.Length + 2;
        int listed = IsExtendedFormat ? 1 : 0;
        for (int i = 0; i < _pathTokens.Length; i++)
        {
            if (encrypted[i] == EncryptedFlag)
            {
                length += _pathTokens[i].Length;
                listed++;
            }
        }

        return length + Math.Max(listed - 1, 0);
    }

    private static bool IsValidText(string value)
    {
        try
        {
            _ = new UTF8Encoding(false, throwOnInvalidBytes: true).GetByteCount(value);
            return true;
        }
        catch (EncoderFallbackException)
        {
            return false;
        }
    }
}

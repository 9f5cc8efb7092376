using System.Buffers;
using System.Diagnostics;
using System.Text;

namespace Encryption.Custom.Json.WireFormat;

/// <summary>
/// <see cref="EncryptionOptions"/> validated (wire-format.md §3.4) and compiled for the hot path: the property
/// names to match as UTF-8, and the constant part of the <c>_ei</c> metadata pre-serialized.
/// </summary>
/// <remarks>Immutable once created; shared by every thread that encrypts with the same options.</remarks>
internal sealed class EncryptionPlan
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

    private EncryptionPlan(string dataEncryptionKeyId, string encryptionAlgorithm, IEnumerable<string> source, string[] paths, Utf8NameTable names, IReadOnlyCollection<string>? deterministicPaths)
    {
        _deterministicSource = deterministicPaths;
        _deterministicPrefixes = new byte[]?[paths.Length];
        DataEncryptionKeyId = dataEncryptionKeyId;
        EncryptionAlgorithm = encryptionAlgorithm;
        _source = source;
        _paths = paths;
        _names = names;
        _pathTokens = new byte[paths.Length][];
        string[] propertyNames = new string[paths.Length];
        _namesByString = new Dictionary<string, int>(paths.Length, StringComparer.Ordinal);
        for (int i = 0; i < paths.Length; i++)
        {
            propertyNames[i] = paths[i][1..];
            _namesByString[propertyNames[i]] = i;
            _pathTokens[i] = Quote(JsonStringEscaper.EscapeToArray(Encoding.UTF8.GetBytes(paths[i])));
            if (deterministicPaths is not null && deterministicPaths.Contains(paths[i]))
            {
                _deterministicPrefixes[i] = DeterministicIvContext.CreatePathPrefix(paths[i]);
            }
        }

        _namesIgnoringCase = new CaseInsensitiveNameIndex(propertyNames);

        // "_ei":{"_ef":3,"_en":"<id>","_ea":"<algorithm>","_ed":null,"_ep":[   (the paths and "]}" follow per document)
        var prefix = new ArrayBufferWriter<byte>();
        prefix.Write("\"_ei\":{\"_ef\":3,\"_en\":"u8);
        prefix.Write(Quote(JsonStringEscaper.EscapeToArray(Encoding.UTF8.GetBytes(dataEncryptionKeyId))));
        prefix.Write(",\"_ea\":"u8);
        prefix.Write(Quote(JsonStringEscaper.EscapeToArray(Encoding.UTF8.GetBytes(encryptionAlgorithm))));
        prefix.Write(",\"_ed\":null,\"_ep\":["u8);
        _envelopePrefix = prefix.WrittenSpan.ToArray();
    }

    /// <summary>The DEK id to encrypt with.</summary>
    public string DataEncryptionKeyId { get; }

    /// <summary>The algorithm (always the current one).</summary>
    public string EncryptionAlgorithm { get; }

    /// <summary>The number of paths.</summary>
    public int PathCount => _paths.Length;

    /// <summary>The longest UTF-8 property name among the paths.</summary>
    public int MaxNameLength { get; private init; }

    /// <summary>Validates and compiles the options.</summary>
    /// <param name="dataEncryptionKeyId">The DEK id.</param>
    /// <param name="encryptionAlgorithm">The algorithm.</param>
    /// <param name="pathsToEncrypt">The paths.</param>
    /// <param name="deterministicPaths">The paths among <paramref name="pathsToEncrypt"/> encrypted deterministically (a container policy's choice), or <see langword="null"/>.</param>
    /// <exception cref="EncryptionException">An option is invalid (<see cref="EncryptionErrorKind.InvalidOptions"/>).</exception>
    public static EncryptionPlan Create(string? dataEncryptionKeyId, string? encryptionAlgorithm, IEnumerable<string>? pathsToEncrypt, IReadOnlyCollection<string>? deterministicPaths = null)
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

        // One snapshot of the collection: whatever the caller passed (a list, a set) is enumerated once here.
        string[] paths = [.. pathsToEncrypt];
        var names = new Utf8NameTable();
        int maxNameLength = 0;
        for (int i = 0; i < paths.Length; i++)
        {
            string path = paths[i];
            byte[] name = ValidatePath(path);
            if (names.Add(name) < 0)
            {
                JsonErrors.ThrowInvalidPath(path, "it is listed more than once.");
            }

            maxNameLength = Math.Max(maxNameLength, name.Length);
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

        return new EncryptionPlan(dataEncryptionKeyId, encryptionAlgorithm, pathsToEncrypt, paths, names, deterministicPaths) { MaxNameLength = maxNameLength };
    }

    /// <summary>Whether these are still the options the plan was compiled from (same references everywhere).</summary>
    public bool IsCompiledFrom(string? dataEncryptionKeyId, string? encryptionAlgorithm, IEnumerable<string>? pathsToEncrypt, IReadOnlyCollection<string>? deterministicPaths = null)
    {
        // Reference comparisons: a replaced string or collection element recompiles, so a path added to the same
        // collection after first use is never silently left in plaintext.
        if (!ReferenceEquals(dataEncryptionKeyId, DataEncryptionKeyId)
            || !ReferenceEquals(encryptionAlgorithm, EncryptionAlgorithm)
            || pathsToEncrypt is null
            || !ReferenceEquals(pathsToEncrypt, _source)
            || !ReferenceEquals(deterministicPaths, _deterministicSource))
        {
            return false;
        }

        if (pathsToEncrypt is IReadOnlyList<string> list)
        {
            // Lists and arrays (the common case) are compared by index: no enumerator, no allocation.
            if (list.Count != _paths.Length)
            {
                return false;
            }

            for (int i = 0; i < _paths.Length; i++)
            {
                if (!ReferenceEquals(list[i], _paths[i]))
                {
                    return false;
                }
            }

            return true;
        }

        int index = 0;
        foreach (string path in pathsToEncrypt)
        {
            if (index == _paths.Length || !ReferenceEquals(path, _paths[index]))
            {
                return false;
            }

            index++;
        }

        return index == _paths.Length;
    }

    /// <summary>The path at <paramref name="index"/>, as given (for example <c>/ssn</c>).</summary>
    public string GetPath(int index) => _paths[index];

    /// <summary>The index of the path whose property name is <paramref name="utf8Name"/> (unescaped), or -1.</summary>
    public int FindPath(ReadOnlySpan<byte> utf8Name) => _names.Find(utf8Name);

    /// <summary>The index of the path whose property name is <paramref name="name"/> (ordinal), or -1.</summary>
    public int FindPath(string name) => _namesByString.TryGetValue(name, out int index) ? index : -1;

    /// <summary>
    /// The index of a path whose property name equals <paramref name="utf8Name"/> when case is ignored (ordinal
    /// ignore-case, as serializers bind), or -1. O(1) in the number of paths.
    /// </summary>
    public int FindPathIgnoringCase(ReadOnlySpan<byte> utf8Name) => _namesIgnoringCase.Find(utf8Name);

    /// <inheritdoc cref="FindPathIgnoringCase(ReadOnlySpan{byte})"/>
    public int FindPathIgnoringCase(string name) => _namesIgnoringCase.Find(name);

    /// <summary>Whether the path at <paramref name="index"/> is encrypted deterministically.</summary>
    public bool IsDeterministic(int index) => _deterministicPrefixes[index] is not null;

    /// <summary>The deterministic IV context prefix of the path at <paramref name="index"/>; empty when it is randomized.</summary>
    public ReadOnlySpan<byte> GetDeterministicPrefix(int index) => _deterministicPrefixes[index];

    /// <summary>The UTF-8 property name of the path at <paramref name="index"/>.</summary>
    public ReadOnlySpan<byte> GetName(int index) => _names.GetName(index);

    /// <summary>The flag of a path that was encrypted (other nonzero flags mean "seen, not encrypted").</summary>
    public const byte EncryptedFlag = 1;

    /// <summary>
    /// Throws when <paramref name="utf8Name"/>, a property name that matched no path exactly, matches one when case
    /// is ignored: a <c>/Ssn</c> path meeting an <c>ssn</c> property (a serializer's naming policy) would otherwise
    /// leave the value in plaintext without a word. One hash lookup; allocates nothing unless it throws.
    /// </summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.InvalidOptions"/>, naming the property and the path.</exception>
    public void ThrowIfCaseVariant(ReadOnlySpan<byte> utf8Name)
    {
        int index = _namesIgnoringCase.Find(utf8Name);
        if (index >= 0)
        {
            JsonErrors.ThrowCaseVariant(JsonErrors.ToPath(utf8Name), _paths[index], DataEncryptionKeyId);
        }
    }

    /// <summary>
    /// Writes <c>"_ei":{...}</c> listing the paths whose flag in <paramref name="encrypted"/> is
    /// <see cref="EncryptedFlag"/>, in the order of the options.
    /// </summary>
    public void WriteEnvelope(IBufferWriter<byte> output, ReadOnlySpan<byte> encrypted)
    {
        Debug.Assert(encrypted.Length >= _paths.Length, "One flag per path.");
        output.Write(_envelopePrefix);
        bool first = true;
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

    /// <summary>The length <see cref="WriteEnvelope"/> writes for the same flags.</summary>
    public int GetEnvelopeLength(ReadOnlySpan<byte> encrypted)
    {
        int length = _envelopePrefix.Length + 2;
        int listed = 0;
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

    private static byte[] ValidatePath(string? path)
    {
        if (string.IsNullOrEmpty(path) || path == "/")
        {
            JsonErrors.ThrowInvalidPath(path, "a path must be '/' followed by a property name.");
        }

        if (path[0] != '/')
        {
            JsonErrors.ThrowInvalidPath(path, "a path must start with '/'.");
        }

        if (path.IndexOf('/', 1) >= 0)
        {
            JsonErrors.ThrowInvalidPath(path, "only top-level properties can be encrypted (no nested paths).");
        }

        if (path == "/id")
        {
            JsonErrors.ThrowInvalidPath(path, "the document id can never be encrypted.");
        }

        if (path == "/" + EncryptionEnvelope.PropertyName)
        {
            JsonErrors.ThrowInvalidPath(path, "'_ei' is reserved for the encryption metadata.");
        }

        try
        {
            return new UTF8Encoding(false, throwOnInvalidBytes: true).GetBytes(path, 1, path.Length - 1);
        }
        catch (EncoderFallbackException)
        {
            JsonErrors.ThrowInvalidPath(path, "it is not valid UTF-16 text.");
            return [];
        }
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

    private static byte[] Quote(byte[] escaped)
    {
        var token = new byte[escaped.Length + 2];
        token[0] = (byte)'"';
        escaped.CopyTo(token, 1);
        token[^1] = (byte)'"';
        return token;
    }
}

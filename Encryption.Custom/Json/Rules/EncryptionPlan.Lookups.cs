using Encryption.Custom.Json.Errors;

namespace Encryption.Custom.Json.Rules;

// The plan's lookups: from a path's text, a property name (exactly or ignoring case) or an index to what the plan
// knows of the path.
internal sealed partial class EncryptionPlan
{
    /// <summary>The index of the path written exactly as <paramref name="path"/> (top-level or nested), or -1.</summary>
    public int IndexOf(string path) => _pathIndexes.TryGetValue(path, out int index) ? index : -1;

    /// <summary>The path at <paramref name="index"/>, as given (for example <c>/ssn</c>).</summary>
    public string GetPath(int index) => _paths[index];

    /// <summary>The path at <paramref name="index"/>, parsed into its decoded segments.</summary>
    public RulePath GetRulePath(int index) => _rulePaths[index];

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

    /// <summary>The UTF-8 property name of the top-level path at <paramref name="index"/> (below <see cref="TopLevelCount"/>).</summary>
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

        // A nested selector's first segment is a top-level name too: "Address" must not slip past "/address/city".
        if (NestedSelectors.FindChild(utf8Name) < 0 && (index = NestedSelectors.FindChildIgnoringCase(utf8Name)) >= 0)
        {
            JsonErrors.ThrowCaseVariant(JsonErrors.ToPath(utf8Name), _paths[NestedSelectors.GetChild(index).FirstRuleIndex], DataEncryptionKeyId);
        }
    }
}

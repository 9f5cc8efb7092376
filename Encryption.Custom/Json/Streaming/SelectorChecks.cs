using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Tokens;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// What each nested selector's cells must prove when a format 101 document is read (<see cref="CellCheck"/>): the
/// document's binding, except for selectors the policy encrypts deterministically, whose cells are never bound (at most
/// 64 selectors: one bit each); and, when a strict reader verifies query tokens, the selector's declaration and its
/// member of <c>_q</c>. A ref struct because the members are a span of the document.
/// </summary>
internal readonly ref struct SelectorChecks
{
    private readonly CellBinding _binding;
    private readonly ulong _unbound;
    private readonly EncryptionPlan? _tokenPolicy;
    private readonly ReadOnlySpan<byte> _tokenMembers;

    /// <param name="binding">The document's binding (default: unbound).</param>
    /// <param name="unbound">Bit <c>i</c>: selector <c>i</c>'s cells are not bound.</param>
    /// <param name="tokenPolicy">The policy whose token declarations are verified, or <see langword="null"/> when tokens are not verified.</param>
    /// <param name="tokenMembers">The document's <c>_q</c> object (its JSON text).</param>
    public SelectorChecks(CellBinding binding, ulong unbound, EncryptionPlan? tokenPolicy = null, ReadOnlySpan<byte> tokenMembers = default)
    {
        _binding = binding;
        _unbound = unbound;
        _tokenPolicy = tokenPolicy;
        _tokenMembers = tokenMembers;
    }

    /// <summary>The check for the cells of selector <paramref name="index"/> of <paramref name="selectors"/>.</summary>
    public CellCheck Get(int index, DocumentSelectors selectors)
    {
        CellBinding binding = (_unbound & (1UL << index)) != 0 ? default : _binding;
        return _tokenPolicy is { } policy && policy.IndexOf(selectors.Texts[index]) is int at and >= 0 && policy.GetQueryTokens(at) is { } rule
            ? new CellCheck(binding, rule, QueryTokenCheck.FindMember(_tokenMembers, rule.PathUtf8))
            : new CellCheck(binding);
    }
}

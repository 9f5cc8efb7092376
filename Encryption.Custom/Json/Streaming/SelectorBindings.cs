using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// How a bound document's nested selectors are read: the document's binding for every selector, except those the
/// policy encrypts deterministically, whose cells are never bound (at most 64 selectors: one bit each).
/// </summary>
internal readonly struct SelectorBindings(CellBinding binding, ulong unbound)
{
    /// <summary>The binding to check the cells of selector <paramref name="index"/> against (default: unbound).</summary>
    public CellBinding Get(int index) => (unbound & (1UL << index)) != 0 ? default : binding;
}

using System.Runtime.CompilerServices;
using System.Text.Json;
using Encryption.Custom.Json.Rules;

namespace Encryption.Custom.Json.Streaming;

/// <summary>Looks the property name a reader is on up among a <see cref="SelectorNode"/>'s children, without allocating.</summary>
internal static class SelectorLookup
{
    /// <summary>The child named exactly as the reader's property name, or -1; <paramref name="variant"/> is the child it equals ignoring case when there is no exact one (else -1).</summary>
    public static int Find(ref Utf8JsonReader reader, SelectorNode node, out int variant)
    {
        if (node.ChildCount == 0)
        {
            variant = -1;
            return -1;
        }

        return reader.ValueIsEscaped ? FindEscaped(ref reader, node, out variant) : Find(reader.ValueSpan, node, out variant);
    }

    /// <inheritdoc cref="Find(ref Utf8JsonReader, SelectorNode, out int)"/>
    public static int Find(ReadOnlySpan<byte> utf8Name, SelectorNode node, out int variant)
    {
        int exact = node.FindChild(utf8Name);
        variant = exact < 0 ? node.FindChildIgnoringCase(utf8Name) : -1;
        return exact;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int FindEscaped(ref Utf8JsonReader reader, SelectorNode node, out int variant)
    {
        (int exact, variant) = ScratchBuffer.WithUnescaped(ref reader, node, static (name, node) => (Find(name, node, out int variant), variant));
        return exact;
    }
}

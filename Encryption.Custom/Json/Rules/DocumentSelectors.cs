using System.Text;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Rules;

/// <summary>
/// The nested selectors one document's <c>_ep</c> lists (format 101), compiled into a <see cref="SelectorNode"/>
/// tree whose leaves carry the selector's position in <see cref="Texts"/>. Documents written under one policy list
/// the same selectors, so compiled sets are cached by their text (<see cref="Get(ReadOnlySpan{byte})"/>): a warm read
/// compiles nothing and allocates nothing.
/// </summary>
internal sealed class DocumentSelectors
{
    private const int CacheSize = 32;

    // Immutable snapshots, replaced whole on a miss; a full cache stops caching (a crafted stream of distinct lists
    // costs a compilation each, never unbounded memory).
    private static volatile Entry[] s_cache = [];

    private DocumentSelectors(SelectorNode root, string[] texts)
    {
        Root = root;
        Texts = texts;
        Utf8Names = [.. texts.Select(t => Encoding.UTF8.GetBytes(t[1..]))];
    }

    /// <summary>The tree (the root stands for the document).</summary>
    public SelectorNode Root { get; }

    /// <summary>The selectors, in <c>_ep</c> order.</summary>
    public string[] Texts { get; }

    /// <summary>Each selector without its leading '/', as UTF-8 (how value errors name a path).</summary>
    public byte[][] Utf8Names { get; }

    /// <summary>
    /// The compiled selectors of <paramref name="text"/>: the unescaped <c>_ep</c> entries, each as a 4-byte
    /// little-endian length followed by its UTF-8 bytes.
    /// </summary>
    /// <exception cref="EncryptionException">An entry is not a valid selector, or they overlap (<see cref="EncryptionErrorKind.MalformedDocument"/>).</exception>
    public static DocumentSelectors Get(ReadOnlySpan<byte> text)
    {
        Entry[] cache = s_cache;
        for (int i = 0; i < cache.Length; i++)
        {
            if (text.SequenceEqual(cache[i].Text))
            {
                return cache[i].Selectors;
            }
        }

        var texts = new List<string>();
        for (int offset = 0; offset < text.Length;)
        {
            int length = BitConverter.ToInt32(text.Slice(offset, 4));
            texts.Add(Encoding.UTF8.GetString(text.Slice(offset + 4, length)));
            offset += 4 + length;
        }

        DocumentSelectors compiled = Compile(texts);
        if (cache.Length < CacheSize)
        {
            s_cache = [.. cache, new Entry(text.ToArray(), compiled)];
        }

        return compiled;
    }

    /// <summary>Compiles <paramref name="texts"/> (a document's nested <c>_ep</c> entries), with the policy's rules.</summary>
    /// <exception cref="EncryptionException">An entry is not a valid selector, or they overlap (<see cref="EncryptionErrorKind.MalformedDocument"/>).</exception>
    public static DocumentSelectors Compile(IReadOnlyList<string> texts)
    {
        if (texts.Count > SelectorRules.MaxNestedSelectors)
        {
            JsonErrors.ThrowMalformedEnvelope($"'_ep' lists more than {SelectorRules.MaxNestedSelectors} nested selectors.");
        }

        var builder = new SelectorTreeBuilder();
        try
        {
            for (int i = 0; i < texts.Count; i++)
            {
                builder.Add(SelectorRules.Parse(texts[i]), i);
            }
        }
        catch (EncryptionException exception) when (exception.Kind == EncryptionErrorKind.InvalidOptions)
        {
            // What the policy calls an invalid option is, in a stored document, damaged metadata.
            JsonErrors.ThrowMalformedEnvelope($"'_ep' lists an invalid selector: {exception.Message}");
        }

        return new DocumentSelectors(builder.Build(), [.. texts]);
    }

    private sealed record Entry(byte[] Text, DocumentSelectors Selectors);
}

using Encryption.Custom.Json.Rules;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Json.Inspection;

/// <summary>
/// Reads a stored document's encryption (<see cref="DocumentInspection"/>) with the rules of one processor: the
/// stream processor's envelope reader and policy scans, or the Newtonsoft processor's. Migration, its status query and
/// the tool's <c>inspect</c> ask here, so <see cref="JsonProcessor"/> chooses how documents are judged as well as how
/// they are rewritten; a property test holds both inspectors to the same answers.
/// </summary>
internal abstract class DocumentInspector
{
    /// <summary>The inspector of <paramref name="processor"/>.</summary>
    public static DocumentInspector For(JsonProcessor processor) => processor switch
    {
        JsonProcessor.Stream => StreamDocumentInspector.Instance,
        JsonProcessor.Newtonsoft => NewtonsoftDocumentInspector.Instance,
        _ => throw new ArgumentOutOfRangeException(nameof(processor), processor, "Unknown JSON processor."),
    };

    /// <summary>Inspects one document. Never throws for what the document holds: an unreadable one is reported as such.</summary>
    /// <param name="document">One JSON document (UTF-8).</param>
    /// <param name="request">The depth limit, the policy to look for unlisted values of, the keys to check encryption types with.</param>
    public abstract DocumentInspection Inspect(ReadOnlySpan<byte> document, in InspectionRequest request);
}

/// <summary>What an inspection looks at besides the metadata.</summary>
/// <param name="MaxDepth">The deepest nesting accepted (as the processor's limit).</param>
/// <param name="Rules">A policy whose positions are searched for values the metadata does not list, or <see langword="null"/>.</param>
/// <param name="Keys">
/// The key to check unbound cells' encryption type with, by the data encryption key id the document names (the
/// caller holds the lease); <see langword="null"/>, or a <see langword="null"/> answer, leaves them unchecked.
/// </param>
internal readonly record struct InspectionRequest(int MaxDepth, PolicyRuleSet? Rules = null, Func<string, DataEncryptionKey?>? Keys = null);

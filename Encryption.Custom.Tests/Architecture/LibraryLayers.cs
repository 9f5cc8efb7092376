using System.Text.RegularExpressions;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Architecture;

/// <summary>The library's layers (docs/architecture.md), lowest first.</summary>
public enum Layer
{
    /// <summary>Files at the root of <c>Encryption.Custom/</c>: the error vocabulary every layer names.</summary>
    Shared,

    /// <summary><c>Diagnostics/</c>: called from every layer, calls none.</summary>
    Diagnostics,

    Native,
    Crypto,
    Keys,
    Json,
    Cosmos,

    /// <summary><c>Migration/</c>: a job over the encryption container and the processors, above Cosmos.</summary>
    Migration,
}

/// <summary>
/// Which layer each library type belongs to: the top folder under <c>Encryption.Custom/</c> of the file that declares
/// it. Read from the sources because the public types share three namespaces across folders
/// (<c>Encryption.Custom</c>, <c>.Processing</c>, <c>.AzureKeyVault</c>), so a namespace does not tell the layer.
/// </summary>
internal static partial class LibraryLayers
{
    private static readonly Dictionary<string, Layer> s_byFolder = new(StringComparer.Ordinal)
    {
        [string.Empty] = Layer.Shared,
        ["Diagnostics"] = Layer.Diagnostics,
        ["Native"] = Layer.Native,
        ["Crypto"] = Layer.Crypto,
        ["Keys"] = Layer.Keys,
        ["Json"] = Layer.Json,
        ["Cosmos"] = Layer.Cosmos,
        ["Migration"] = Layer.Migration,
    };

    /// <summary>Top-level type ("Namespace.Name", generic arity dropped) to its layer.</summary>
    public static IReadOnlyDictionary<string, Layer> ByTypeName => s_sources.Layers;

    /// <summary>Top-level type to the folder of its source file, relative to <c>Encryption.Custom/</c> ("Json/Streaming").</summary>
    public static IReadOnlyDictionary<string, string> FolderByTypeName => s_sources.Folders;

    private static readonly (Dictionary<string, Layer> Layers, Dictionary<string, string> Folders) s_sources = ReadSources();

    /// <summary>
    /// Whether code in <paramref name="from"/> may name a type of <paramref name="to"/>: its own layer, any layer
    /// below it in Cosmos → Json → Keys → Crypto → Native (Migration above Cosmos), and from anywhere the shared
    /// error vocabulary and Diagnostics. Diagnostics itself names only the shared vocabulary.
    /// </summary>
    public static bool MayReference(Layer from, Layer to) =>
        from == to
        || to == Layer.Shared
        || (to == Layer.Diagnostics && from != Layer.Shared)
        || (from > Layer.Diagnostics && to > Layer.Diagnostics && from > to);

    /// <summary>Layers that may name a type of the Cosmos DB SDK (Keys: the DEK container, Keys/Cosmos); Json and below may not.</summary>
    public static bool MayUseCosmosSdk(Layer layer) => layer is Layer.Keys or Layer.Cosmos or Layer.Migration;

    /// <summary>The layer of a library type (nested types take their outermost type's), or null for compiler-made types.</summary>
    public static Layer? Of(Type type)
    {
        while (type.DeclaringType is { } outer)
        {
            type = outer;
        }

        if (IsCompilerGenerated(type))
        {
            return null;
        }

        string name = $"{type.Namespace}.{StripArity(type.Name)}";
        return ByTypeName.TryGetValue(name, out Layer layer)
            ? layer
            : throw new InvalidOperationException($"No source file under Encryption.Custom/ declares {name}, so it has no layer.");
    }

    public static string TopLevelName(Type type)
    {
        while (type.DeclaringType is { } outer)
        {
            type = outer;
        }

        return $"{type.Namespace}.{StripArity(type.Name)}";
    }

    // <PrivateImplementationDetails> (constant data) and the regex source generator's file-local types have no
    // source file of the library's own; they carry no dependency the declaring code does not already show.
    private static bool IsCompilerGenerated(Type type) =>
        type.Name.Contains('<', StringComparison.Ordinal)
        || type.Namespace == "System.Text.RegularExpressions.Generated"
        || type.Namespace is null;

    private static string StripArity(string name) => name.Split('`')[0];

    private static (Dictionary<string, Layer> Layers, Dictionary<string, string> Folders) ReadSources()
    {
        string library = RepositoryFiles.Path("Encryption.Custom");
        Dictionary<string, Layer> layers = new(StringComparer.Ordinal);
        Dictionary<string, string> typeFolders = new(StringComparer.Ordinal);
        foreach (string file in Directory.EnumerateFiles(library, "*.cs", SearchOption.AllDirectories))
        {
            string[] folders = Path.GetDirectoryName(Path.GetRelativePath(library, file))!.Split(Path.DirectorySeparatorChar);
            if (folders[0] is "bin" or "obj")
            {
                continue;
            }

            Layer layer = s_byFolder.TryGetValue(folders[0], out Layer known)
                ? known
                : throw new InvalidOperationException($"Folder Encryption.Custom/{folders[0]} has no layer; add it to the map and to docs/architecture.md.");
            string text = File.ReadAllText(file);
            string ns = FileNamespace().Match(text) is { Success: true } match
                ? match.Groups[1].Value
                : throw new InvalidOperationException($"{file} has no file-scoped namespace.");
            foreach (Match declaration in TopLevelDeclaration().Matches(text))
            {
                string name = $"{ns}.{declaration.Groups["name"].Value}";
                if (layers.TryGetValue(name, out Layer other) && other != layer)
                {
                    throw new InvalidOperationException($"{name} is declared in two layers ({other}, {layer}).");
                }

                layers[name] = layer;
                typeFolders[name] = string.Join('/', folders);
            }
        }

        return (layers, typeFolders);
    }

    [GeneratedRegex(@"^namespace\s+([\w.]+)\s*;", RegexOptions.Multiline)]
    private static partial Regex FileNamespace();

    // Top-level declarations start the line (file-scoped namespaces, no indentation); nested ones are indented.
    [GeneratedRegex(@"^(?:(?:public|internal|file|static|sealed|abstract|partial|readonly|ref|unsafe)\s+)*(?:(?:class|struct|interface|enum|record(?:\s+struct|\s+class)?)\s+(?<name>\w+)|delegate\s+[\w<>\[\]?,. ]+?\s+(?<name>\w+)\s*[<(])", RegexOptions.Multiline)]
    private static partial Regex TopLevelDeclaration();
}

using System.Reflection;
using System.Text.RegularExpressions;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Architecture;

/// <summary>
/// Dependencies in the compiled library point only downward: Migration → Cosmos → Json → Keys → Crypto → Native,
/// every layer may use Diagnostics and the shared error vocabulary, and only Cosmos, Migration and Keys (whose DEK
/// container is a Cosmos DB container) name Cosmos DB SDK types (docs/architecture.md). Checked on signatures, fields, base types, locals and the types method bodies name
/// in IL, so a dependency hidden in a lambda or an async state machine is found too.
/// </summary>
public sealed partial class LayerDirectionTests
{
    private const string CosmosSdkAssembly = "Microsoft.Azure.Cosmos.Client";

    /// <summary>
    /// The Crypto types Native may name, the one place a dependency points up. Native/OpenSsl is the AEAD's second
    /// backend: it derives from the abstract types Crypto declares so that the managed backend (Crypto/Managed) and
    /// the OpenSSL one are interchangeable, and Native/Memory's protected key derives from the key source the AEAD
    /// asks for a sub-key. Moving these safe abstractions into Native would put safe code inside the unsafe surface
    /// reviewed as one (docs/architecture.md, "The native boundary"). Anything else Native names in Crypto fails.
    /// </summary>
    private static readonly Dictionary<string, string> s_cryptoSeamImplementedByNative = new(StringComparer.Ordinal)
    {
        ["Encryption.Custom.Crypto.AeadBackend"] = "the backend seam: OpenSslAeadBackend is one of the two backends",
        ["Encryption.Custom.Crypto.AeadContext"] = "a keyed context the backend creates and the AEAD pools",
        ["Encryption.Custom.Crypto.CbcCipher"] = "the CBC primitive each backend supplies",
        ["Encryption.Custom.Crypto.HmacSha256"] = "the HMAC primitive each backend supplies",
        ["Encryption.Custom.Crypto.AeadKeySource"] = "where a context gets its sub-key; ProtectedKeyMaterial is one",
        ["Encryption.Custom.Crypto.AeadSubKey"] = "which sub-key AeadKeySource.UseSubKey unmasks",
        ["Encryption.Custom.Crypto.SubKeyAction"] = "the callback AeadKeySource.UseSubKey calls with the sub-key",
        ["Encryption.Custom.Crypto.AeadErrors"] = "the AEAD's error messages, so both backends fail with the same words",
    };

    /// <summary>Cosmos DB SDK types still named where they should not be, each with why. An entry no longer found fails the test.</summary>
    private static readonly Dictionary<(string From, string To), string> s_knownCosmosSdkUses = new()
    {
        // The error vocabulary has one owner, below every layer that reports errors (Keys, Cosmos, Migration and,
        // through DiagnosticNames.GetErrorType, Hosting), so it names the SDK's exception to tag its status code.
        [("Encryption.Custom.Diagnostics.ErrorTypes", "Microsoft.Azure.Cosmos.CosmosException")] =
            "ErrorTypes.Classify tags a CosmosException with its status code",
    };

    private static Assembly Library => typeof(DataEncryptionKey).Assembly;

    [Fact]
    public void CompiledLibrary_DependenciesPointOnlyDownward()
    {
        SortedSet<string> upward = [];
        HashSet<string> seamUsed = [];
        foreach ((Type from, Layer fromLayer, Type to, string via) in LibraryDependencies())
        {
            if (to.Assembly != Library || LibraryLayers.Of(to) is not { } toLayer || LibraryLayers.MayReference(fromLayer, toLayer))
            {
                continue;
            }

            string target = LibraryLayers.TopLevelName(to);
            if (fromLayer == Layer.Native && toLayer == Layer.Crypto && s_cryptoSeamImplementedByNative.ContainsKey(target))
            {
                seamUsed.Add(target);
                continue;
            }

            upward.Add($"{fromLayer} → {toLayer}: {from.FullName} ({via}) names {to.FullName}");
        }

        AssertNone("upward dependencies", upward);
        AssertNone("seam types Native no longer names (remove them from the list)", s_cryptoSeamImplementedByNative.Keys.Except(seamUsed));
    }

    [Fact]
    public void OnlyCosmosMigrationAndKeys_NameCosmosSdkTypes()
    {
        SortedSet<string> found = [];
        HashSet<(string From, string To)> knownSeen = [];
        foreach ((Type from, Layer fromLayer, Type to, string via) in LibraryDependencies())
        {
            if (to.Assembly.GetName().Name != CosmosSdkAssembly || LibraryLayers.MayUseCosmosSdk(fromLayer))
            {
                continue;
            }

            (string From, string To) pair = (LibraryLayers.TopLevelName(from), LibraryLayers.TopLevelName(to));
            if (s_knownCosmosSdkUses.ContainsKey(pair))
            {
                knownSeen.Add(pair);
                continue;
            }

            found.Add($"{fromLayer}: {from.FullName} ({via}) names {to.FullName}");
        }

        AssertNone("Cosmos DB SDK types named outside Cosmos, Migration and Keys", found);
        AssertNone("stale entries (remove them from the list)", s_knownCosmosSdkUses.Keys.Except(knownSeen).Select(k => $"{k.From} → {k.To}"));
    }

    /// <summary>
    /// Json's sub-folders (Streaming, JTokens, Text, WireFormat, Rules, Inspection) depend on each other without a
    /// cycle, so each can be read and changed knowing only the ones below it. The processors' public entry points at
    /// Json's root dispatch to the sub-folders and are left out: they sit above all of them by design.
    /// </summary>
    [Fact]
    public void JsonSubFolders_FormNoCycle()
    {
        Dictionary<string, HashSet<string>> edges = new(StringComparer.Ordinal);
        Dictionary<(string From, string To), string> example = [];
        foreach ((Type from, Layer fromLayer, Type to, string via) in LibraryDependencies())
        {
            if (fromLayer != Layer.Json || to.Assembly != Library || LibraryLayers.Of(to) != Layer.Json
                || JsonSubFolder(from) is not { } fromFolder || JsonSubFolder(to) is not { } toFolder || fromFolder == toFolder)
            {
                continue;
            }

            if (!edges.TryGetValue(fromFolder, out HashSet<string>? targets))
            {
                edges[fromFolder] = targets = new HashSet<string>(StringComparer.Ordinal);
            }

            if (targets.Add(toFolder))
            {
                example[(fromFolder, toFolder)] = $"{from.FullName} ({via}) names {to.FullName}";
            }
        }

        Assert.True(edges.Count >= 3, "the scan found too few dependencies between Json's sub-folders to judge");
        List<List<string>> cycles = FolderGraph.Cycles(edges);
        AssertNone(
            "cycles among Json's sub-folders",
            cycles.Select(cycle => $"{{{string.Join(", ", cycle)}}}: " + string.Join("; ", example
                .Where(e => cycle.Contains(e.Key.From) && cycle.Contains(e.Key.To))
                .Select(e => $"{e.Key.From} → {e.Key.To} ({e.Value})"))));
    }

    /// <summary>
    /// Each of Json's sub-folders is the namespace <c>Encryption.Custom.Json.&lt;folder&gt;</c>, so the check above is
    /// also one of the sub-namespaces (issue 33), and a type moved between them moves folder too.
    /// </summary>
    [Fact]
    public void JsonSubFolders_AreTheirNamespaces()
    {
        string[] misplaced = [.. LibraryLayers.FolderByTypeName
            .Where(t => t.Value.StartsWith("Json/", StringComparison.Ordinal)
                && !t.Key.StartsWith("Encryption.Custom." + t.Value.Replace('/', '.') + ".", StringComparison.Ordinal))
            .Select(t => $"{t.Key} (in {t.Value})")];
        AssertNone("types whose namespace is not their Json sub-folder", misplaced);
    }

    /// <summary>
    /// The using lines of Json's sub-namespaces form no cycle either: a file's usings name what it depends on
    /// (docs/architecture.md), so a stale one (a type moved away, its using left behind) would claim a dependency the
    /// compiled check above no longer sees.
    /// </summary>
    [Fact]
    public void JsonSubNamespaceUsings_FormNoCycle()
    {
        Dictionary<string, HashSet<string>> edges = new(StringComparer.Ordinal);
        Dictionary<(string From, string To), string> example = [];
        string json = RepositoryFiles.Path("Encryption.Custom", "Json");
        foreach (string file in Directory.EnumerateFiles(json, "*.cs", SearchOption.AllDirectories))
        {
            string text = File.ReadAllText(file);
            if (JsonSubNamespace().Match(text) is not { Success: true } own)
            {
                continue;
            }

            string from = own.Groups[1].Value;
            foreach (Match used in JsonSubNamespaceUsing().Matches(text))
            {
                string to = used.Groups[1].Value;
                if (to != from && (edges.TryGetValue(from, out HashSet<string>? targets) ? targets : edges[from] = new(StringComparer.Ordinal)).Add(to))
                {
                    example[(from, to)] = Path.GetRelativePath(json, file);
                }
            }
        }

        Assert.True(edges.Count >= 3, "the scan found too few usings between Json's sub-namespaces to judge");
        AssertNone(
            "cycles among the usings of Json's sub-namespaces",
            FolderGraph.Cycles(edges).Select(cycle => $"{{{string.Join(", ", cycle)}}}: " + string.Join("; ", example
                .Where(e => cycle.Contains(e.Key.From) && cycle.Contains(e.Key.To))
                .Select(e => $"{e.Key.From} → {e.Key.To} ({e.Value})"))));
    }

    [GeneratedRegex(@"^namespace\s+Encryption\.Custom\.Json\.(\w+)\s*;", RegexOptions.Multiline)]
    private static partial Regex JsonSubNamespace();

    [GeneratedRegex(@"^using\s+Encryption\.Custom\.Json\.(\w+)\s*;", RegexOptions.Multiline)]
    private static partial Regex JsonSubNamespaceUsing();

    private static string? JsonSubFolder(Type type)
    {
        string folder = LibraryLayers.FolderByTypeName[LibraryLayers.TopLevelName(type)];
        return folder.StartsWith("Json/", StringComparison.Ordinal) ? folder.Split('/')[1] : null;
    }

    [Fact]
    public void Scan_SeesTheLayersAndTheirDownwardDependencies()
    {
        // Guards the checks above against passing vacuously: every folder maps to a layer holding types, and the
        // scan finds dependencies that are known to exist, one of them only in a method body.
        Assert.Equal(Enum.GetValues<Layer>().ToHashSet(), LibraryLayers.ByTypeName.Values.ToHashSet());
        Assert.Equal(Layer.Cosmos, LibraryLayers.Of(typeof(EncryptionContainerExtensions)));
        Assert.Equal(Layer.Json, LibraryLayers.Of(typeof(EncryptionProcessor)));
        Assert.Equal(Layer.Keys, LibraryLayers.Of(typeof(DataEncryptionKey)));

        HashSet<(Layer, Layer)> edges = LibraryDependencies()
            .Where(d => d.To.Assembly == Library && LibraryLayers.Of(d.To) is not null)
            .Select(d => (d.FromLayer, LibraryLayers.Of(d.To)!.Value))
            .ToHashSet();
        Assert.Contains((Layer.Cosmos, Layer.Json), edges);
        Assert.Contains((Layer.Json, Layer.Keys), edges);
        Assert.Contains((Layer.Keys, Layer.Crypto), edges);
        Assert.Contains((Layer.Crypto, Layer.Native), edges);
        Assert.Contains(
            LibraryDependencies(),
            d => d.Via.StartsWith("IL", StringComparison.Ordinal) && d.To.Assembly.GetName().Name == CosmosSdkAssembly);
    }

    [Theory]
    [InlineData(Layer.Cosmos, Layer.Json, true)]
    [InlineData(Layer.Migration, Layer.Cosmos, true)]
    [InlineData(Layer.Crypto, Layer.Diagnostics, true)]
    [InlineData(Layer.Native, Layer.Shared, true)]
    [InlineData(Layer.Json, Layer.Cosmos, false)]
    [InlineData(Layer.Cosmos, Layer.Migration, false)]
    [InlineData(Layer.Native, Layer.Crypto, false)]
    [InlineData(Layer.Diagnostics, Layer.Native, false)]
    [InlineData(Layer.Shared, Layer.Keys, false)]
    public void MayReference_FollowsTheLayerOrder(Layer from, Layer to, bool allowed) =>
        Assert.Equal(allowed, LibraryLayers.MayReference(from, to));

    // Every finding in the message (Assert.Empty shows only the first few, cut short).
    private static void AssertNone(string what, IEnumerable<string> found)
    {
        string[] all = found.Order(StringComparer.Ordinal).ToArray();
        Assert.True(all.Length == 0, $"{all.Length} {what}:{Environment.NewLine}{string.Join(Environment.NewLine, all)}");
    }

    private static IEnumerable<(Type From, Layer FromLayer, Type To, string Via)> LibraryDependencies()
    {
        foreach (Type type in Library.GetTypes())
        {
            if (LibraryLayers.Of(type) is not { } layer)
            {
                continue;
            }

            foreach ((Type target, string via) in TypeReferences.Of(type))
            {
                foreach (Type named in TypeReferences.Named(target))
                {
                    yield return (type, layer, named, via);
                }
            }
        }
    }
}

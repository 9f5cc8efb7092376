using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Performance.Tests.Documents;

/// <summary>
/// The bound and committed shapes: the mixed document and paths, under a container policy that binds them to the
/// container <see cref="Scope"/> with the partition-key path <c>/type</c> (and, for the committed shape, commits the
/// document), as a container with <c>Bind</c> (and <c>Commit</c>) compiles it.
/// </summary>
internal static class BoundDocumentBuilder
{
    /// <summary>The "&lt;database&gt;/&lt;container&gt;" the documents are bound to.</summary>
    public const string Scope = "benchmarks/documents";

    public static BenchmarkDocument Build(DocumentShape shape, int size, Random random)
    {
        BenchmarkDocument mixed = MixedDocumentBuilder.Build(size, random, lookupKeys: false);
        var policy = new ContainerEncryptionPolicy(BenchmarkDocument.KeyId, mixed.Paths) { Bind = true, Commit = shape == DocumentShape.Committed };
        PolicyRuleSet rules = policy.Rules.BindTo(new BindingTarget(Scope, ["/type"]).WithCommit(shape == DocumentShape.Committed));
        return new BenchmarkDocument(shape, size, mixed.Utf8, [.. mixed.Paths]) { Rules = rules };
    }
}

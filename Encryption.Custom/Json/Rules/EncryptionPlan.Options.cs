using Encryption.Custom.Json.Tokens;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Rules;

internal sealed partial class EncryptionPlan
{
    /// <summary>
    /// The options as <see cref="Create"/> was given them, validated: what the plan compiles, and the references it
    /// keeps to tell whether it is still compiled from the same options (<see cref="IsCompiledFrom"/>).
    /// </summary>
    private readonly struct Options(
        string dataEncryptionKeyId,
        string encryptionAlgorithm,
        IEnumerable<string> paths,
        IReadOnlyCollection<string>? deterministicPaths,
        BindingTarget? binding,
        IReadOnlyList<QueryTokenRule?>? queryTokens)
    {
        public string DataEncryptionKeyId { get; } = dataEncryptionKeyId;

        public string EncryptionAlgorithm { get; } = encryptionAlgorithm;

        /// <summary>The paths to encrypt, the collection itself (enumerated once, by <see cref="Create"/>).</summary>
        public IEnumerable<string> Paths { get; } = paths;

        public IReadOnlyCollection<string>? DeterministicPaths { get; } = deterministicPaths;

        public BindingTarget? Binding { get; } = binding;

        /// <summary>Per path, its query-token declaration as given (the plan keeps the checked copy beside it).</summary>
        public IReadOnlyList<QueryTokenRule?>? QueryTokens { get; } = queryTokens;
    }
}

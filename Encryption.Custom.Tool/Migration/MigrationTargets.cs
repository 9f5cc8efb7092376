using Encryption.Custom.Tool.CommandLine;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.Migration;

/// <summary>The target policy migrate and status compare documents with.</summary>
internal static class MigrationTargets
{
    /// <summary>The policy <c>--dek-id</c> and <c>--path</c> describe, or <see langword="null"/> for "no encryption".</summary>
    /// <exception cref="ToolException">A path or the DEK id is invalid (exit code 2, checked by the library's own rules).</exception>
    public static ContainerEncryptionPolicy? PolicyOf(MigrationArguments arguments)
    {
        if (arguments.TargetDekId is not { } dekId)
        {
            return null;
        }

        try
        {
            return new ContainerEncryptionPolicy(dekId, arguments.TargetPaths.Select(path => new EncryptionPolicyIncludedPath(path)
            {
                EncryptionType = arguments.DeterministicPaths.Contains(path, StringComparer.Ordinal) ? PathEncryptionType.Deterministic : PathEncryptionType.Randomized,
            }));
        }
        catch (EncryptionException exception) when (exception.Kind == EncryptionErrorKind.InvalidOptions)
        {
            throw ToolException.Usage(exception.Message);
        }
    }
}

using Xunit.v3;

namespace Encryption.Custom.Emulator.Tests.Infrastructure;

/// <summary>
/// Marks a test class (or one test) as part of the SDK smoke set: the tests <c>eng/sdk-matrix.sh</c> runs on every
/// supported Microsoft.Azure.Cosmos version other than the one the whole suite ran on, and <c>eng/test.sh --quick</c>
/// runs as its endpoint step. Selected with <c>-trait Category=SdkSmoke</c> on the test executable (what the scripts
/// run) or <c>--filter Category=SdkSmoke</c> through <c>dotnet test</c>.
/// </summary>
/// <remarks>
/// The set is chosen by what can differ between SDK versions for this library (docs/dependencies.md, "Cosmos SDK
/// versions"): every SDK type the library derives from, and every SDK behaviour it builds on. Mark a test here when it
/// is the only one that drives such a type or behaviour through the real SDK; a test of the library's own logic does
/// not belong here, whatever it touches.
/// </remarks>
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Method, AllowMultiple = false)]
public sealed class SdkSmokeAttribute : Attribute, ITraitAttribute
{
    /// <summary>The trait name the filter selects on.</summary>
    public const string TraitName = "Category";

    /// <summary>The trait value of the smoke set.</summary>
    public const string TraitValue = "SdkSmoke";

    /// <inheritdoc/>
    public IReadOnlyCollection<KeyValuePair<string, string>> GetTraits() => [new(TraitName, TraitValue)];
}

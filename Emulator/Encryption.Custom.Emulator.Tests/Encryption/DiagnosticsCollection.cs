namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>Listeners are process-wide: the tests that attach them run alone.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class DiagnosticsCollection
{
    public const string Name = "Diagnostics";
}

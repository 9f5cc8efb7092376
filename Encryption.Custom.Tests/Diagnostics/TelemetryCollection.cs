namespace Encryption.Custom.Tests.Diagnostics;

/// <summary>
/// Listeners are process-wide: tests that attach one (or assert that nobody listens) run alone, never in parallel
/// with tests that would otherwise feed or observe them.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class TelemetryCollection
{
    public const string Name = "Telemetry";
}

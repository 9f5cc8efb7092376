using Encryption.Custom;
using OpenTelemetry.Metrics;
using OpenTelemetry.Trace;

// In OpenTelemetry's namespace, as instrumentation libraries put their registration: an application that configures
// tracing or metrics has that using already and finds AddCosmosEncryptionInstrumentation beside the others.
namespace OpenTelemetry;

/// <summary>
/// Registers Encryption.Custom's activity source and meter (<see cref="DiagnosticNames.SourceName"/>) with
/// OpenTelemetry: spans for each encrypting operation and the operation, byte and key-cache metrics of
/// docs/diagnostics.md. Neither carries a key, a plaintext or a ciphertext byte.
/// </summary>
public static class CosmosEncryptionInstrumentationExtensions
{
    /// <summary>Adds the library's activity source (<c>Encryption.Custom</c>) to the traces <paramref name="builder"/> collects.</summary>
    /// <param name="builder">The application's tracer provider builder.</param>
    /// <returns><paramref name="builder"/>, for chaining.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="builder"/> is null.</exception>
    public static TracerProviderBuilder AddCosmosEncryptionInstrumentation(this TracerProviderBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        return builder.AddSource(DiagnosticNames.SourceName);
    }

    /// <summary>Adds the library's meter (<c>Encryption.Custom</c>) to the metrics <paramref name="builder"/> collects.</summary>
    /// <param name="builder">The application's meter provider builder.</param>
    /// <returns><paramref name="builder"/>, for chaining.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="builder"/> is null.</exception>
    public static MeterProviderBuilder AddCosmosEncryptionInstrumentation(this MeterProviderBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        return builder.AddMeter(DiagnosticNames.SourceName);
    }
}

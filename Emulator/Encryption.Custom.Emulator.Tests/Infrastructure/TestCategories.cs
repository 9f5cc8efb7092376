namespace Encryption.Custom.Emulator.Tests.Infrastructure;

/// <summary>Trait names and values for the integration tests.</summary>
public static class TestCategories
{
    /// <summary>The trait name.</summary>
    public const string Name = "Category";

    /// <summary>
    /// Needs what only Cosmos DB itself (or Microsoft's emulator) does: transactional batch, bulk, throughput,
    /// SQL the bundled server cannot parse. Skipped against the bundled server with the reason shown.
    /// </summary>
    public const string RealEndpointOnly = "RealEndpointOnly";
}

using Newtonsoft.Json;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>A nested object, encrypted as one value.</summary>
public sealed record Address(
    [property: JsonProperty("street")] string Street,
    [property: JsonProperty("city")] string City);

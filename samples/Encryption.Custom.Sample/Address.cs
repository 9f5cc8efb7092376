using Newtonsoft.Json;

namespace EncryptionSample;

/// <summary>A postal address, encrypted as one value.</summary>
internal sealed record Address(
    [property: JsonProperty("street")] string Street,
    [property: JsonProperty("city")] string City);

using Newtonsoft.Json;

namespace EncryptionSample;

/// <summary>An order in the migration example (docs/migrating.md): the card number and the address are encrypted.</summary>
internal sealed record Order(
    [property: JsonProperty("id")] string Id,
    [property: JsonProperty("tenant")] string Tenant,
    [property: JsonProperty("cardNumber")] string CardNumber,
    [property: JsonProperty("address")] Address Address,
    [property: JsonProperty("total")] double Total);

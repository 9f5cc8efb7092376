using Newtonsoft.Json;

namespace EncryptionSample;

/// <summary>A customer record: the tenant partitions the container; the SSN, card and address are encrypted.</summary>
internal sealed record Customer(
    [property: JsonProperty("id")] string Id,
    [property: JsonProperty("tenant")] string Tenant,
    [property: JsonProperty("name")] string Name,
    [property: JsonProperty("ssn")] string Ssn,
    [property: JsonProperty("creditCard")] string CreditCard,
    [property: JsonProperty("address")] Address Address,
    [property: JsonProperty("balance")] long Balance)
{
    /// <summary>The properties the sample encrypts.</summary>
    public static readonly string[] EncryptedPaths = ["/ssn", "/creditCard", "/address", "/balance"];
}

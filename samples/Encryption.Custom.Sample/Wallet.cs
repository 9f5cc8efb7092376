using Newtonsoft.Json;

namespace EncryptionSample;

/// <summary>A customer's wallet (NestedSelectorsExample): the street and city inside the address and every card's number are encrypted.</summary>
internal sealed record Wallet(
    [property: JsonProperty("id")] string Id,
    [property: JsonProperty("tenant")] string Tenant,
    [property: JsonProperty("name")] string Name,
    [property: JsonProperty("address")] PostalAddress Address,
    [property: JsonProperty("cards")] IReadOnlyList<Card> Cards)
{
    /// <summary>Records compare lists by reference; a wallet read back equals the written one when every part does.</summary>
    public bool SameAs(Wallet other) =>
        Id == other.Id && Tenant == other.Tenant && Name == other.Name && Address == other.Address && Cards.SequenceEqual(other.Cards);
}

/// <summary>An address whose street and city are encrypted, each as its own value; the zip code stays plaintext.</summary>
internal sealed record PostalAddress(
    [property: JsonProperty("street")] string Street,
    [property: JsonProperty("city")] string City,
    [property: JsonProperty("zip")] string Zip);

/// <summary>A payment card: the number is encrypted, the expiry and nickname stay plaintext.</summary>
internal sealed record Card(
    [property: JsonProperty("number")] string Number,
    [property: JsonProperty("expiry")] string Expiry,
    [property: JsonProperty("nickname")] string Nickname);

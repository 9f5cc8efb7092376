using Encryption.Custom.Emulator.Tests.Encryption;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Policy;

/// <summary>
/// What the nested-selector patch tests (<see cref="NestedPatchTests"/>, <see cref="NestedBatchPatchTests"/>) share: a
/// customer whose SSN, address city and card numbers are selected, every secret value marked <c>SECRET</c>, in
/// partition <c>p1</c>.
/// </summary>
internal static class NestedCustomers
{
    private static readonly PartitionKey s_pk = new("p1");

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    /// <summary>The policy over /ssn, /address/city and /cards/[]/number, bound unless <paramref name="bind"/> is false.</summary>
    public static EncryptionContainerOptions Bound(JsonProcessor processor, bool fallback = true, bool bind = true) => new()
    {
        JsonProcessor = processor,
        PatchFallbackToReplace = fallback,
        Policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, ["/ssn", "/address/city", "/cards/[]/number"]) { Bind = bind },
    };

    public static JObject Customer(string id) => JObject.Parse($$"""
        {"id":"{{id}}","pk":"p1","name":"Ada","ssn":"SECRET-ssn",
         "address":{"street":"1 Main St","city":"SECRET-Paris"},
         "cards":[{"number":"SECRET-4111","expiry":"12/30"},{"number":"SECRET-5500","expiry":"01/31"}]}
        """);

    public static async Task<JObject> ReadAsync(Container container, string id) =>
        (await container.ReadItemAsync<JObject>(id, s_pk, cancellationToken: Ct)).Resource;

    /// <summary>The document as stored: no <c>SECRET</c> anywhere, format 101.</summary>
    public static async Task<JObject> AssertStoredEncryptedAsync(Container raw, string id)
    {
        JObject stored = await RawDocuments.ReadAsync(raw, id, s_pk, Ct);
        Assert.DoesNotContain("SECRET", stored.ToString(Formatting.None), StringComparison.Ordinal);
        Assert.Equal(101, (int)stored["_ei"]!["_ef"]!);
        return stored;
    }
}

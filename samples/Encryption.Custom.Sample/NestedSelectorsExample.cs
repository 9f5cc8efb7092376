using Encryption.Custom;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace EncryptionSample;

/// <summary>
/// docs/policy.md "Selectors" and "Binding": a policy that encrypts values inside an object (<c>/address/street</c>,
/// <c>/address/city</c>) and inside every element of an array (<c>/cards/[]/number</c>). A policy with nested selectors
/// binds by default, so each value is also tied to its document: the raw stored document holds ciphertext at exactly
/// those places, the application reads plaintext, and a card number copied into another customer's document is refused.
/// </summary>
internal static class NestedSelectorsExample
{
    /// <summary>The policy: two values inside the address and the number of every card. Bind is left automatic (it binds).</summary>
    public static ContainerEncryptionPolicy Policy() => new("wallets-dek", ["/address/street", "/address/city", "/cards/[]/number"]);

    public static async Task<bool> RunAsync(Database database)
    {
        Output.Step("Nested selectors and binding: encrypt /address/street, /address/city and /cards/[]/number");
        using LocalKeys keys = await LocalKeys.CreateAsync(database, "wallets-dek");
        Container raw = (await database.CreateContainerAsync("wallets", "/tenant")).Container;
        Container wallets = raw.WithEncryptor(keys.Encryptor, new EncryptionContainerOptions { Policy = Policy() });

        var ada = new Wallet("w1", "contoso", "Ada", new("1 Main St", "Springfield", "12345"),
            [new("4111 1111 1111 1111", "12/30", "travel"), new("5500 0000 0000 0004", "01/31", "groceries")]);
        var grace = new Wallet("w2", "contoso", "Grace", new("2 Elm St", "Shelbyville", "67890"), [new("3400 0000 0000 009", "02/32", "work")]);
        await wallets.CreateItemAsync(ada, new PartitionKey(ada.Tenant));
        await wallets.CreateItemAsync(grace, new PartitionKey(grace.Tenant));

        JObject stored = await Stored.ReadAsync(raw, ada.Id, ada.Tenant);
        Wallet read = (await wallets.ReadItemAsync<Wallet>(ada.Id, new PartitionKey(ada.Tenant))).Resource;
        Output.Line("stored (raw container):");
        Output.Line(stored["address"]!.ToString(Formatting.None));
        Output.Line(stored["cards"]!.ToString(Formatting.None));
        Output.Line("_ei: " + stored["_ei"]!.ToString(Formatting.None));
        Output.Line($"read (encryption container): {read.Address} / {string.Join(", ", read.Cards)}");

        JToken[] cells = [stored["address"]!["street"]!, stored["address"]!["city"]!, .. stored["cards"]!.Select(card => card["number"]!)];
        string[] crit = [.. stored["_ei"]!["_ev"]!["crit"]!.Select(feature => (string)feature!)];
        bool ok = Output.Check(read.SameAs(ada), "the application reads the wallet it wrote, in plaintext")
            & Output.Check(cells.All(IsBoundCell), "the stored street, city and card numbers are ciphertext (bound cells: type marker, then version 2)")
            & Output.Check((string?)stored["address"]!["zip"] == "12345" && (string?)stored["cards"]![0]!["expiry"] == "12/30" && (string?)stored["cards"]![1]!["nickname"] == "groceries",
                "the zip code, expiry dates and nicknames stay plaintext")
            & Output.Check(crit.SequenceEqual(["sel", "bind"]), "the document is format 101 with nested selectors and bound values");

        // Binding: Ada's first card number, copied by a writer without the key into Grace's document, is refused.
        Output.Step("Binding: a card number copied raw into another customer's document");
        JObject storedGrace = await Stored.ReadAsync(raw, grace.Id, grace.Tenant);
        storedGrace["cards"]![0]!["number"] = stored["cards"]![0]!["number"]!.DeepClone();
        foreach (string system in new[] { "_rid", "_self", "_etag", "_attachments", "_ts", "_lsn" })
        {
            storedGrace.Remove(system);
        }

        await raw.ReplaceItemAsync(storedGrace, grace.Id, new PartitionKey(grace.Tenant));
        try
        {
            await wallets.ReadItemAsync<Wallet>(grace.Id, new PartitionKey(grace.Tenant));
            ok &= Output.Check(false, "the copied card number is refused");
        }
        catch (EncryptionException refused)
        {
            Output.Line($"{refused.Kind}: {refused.Message}");
            ok &= Output.Check(refused.Kind == EncryptionErrorKind.CellBindingMismatch && !refused.Message.Contains("4111", StringComparison.Ordinal), "the copied card number is refused (CellBindingMismatch), without echoing it");
        }

        return ok;
    }

    // docs/wire-format.md: an encrypted value is base64 of a type marker and a cell; a bound cell starts with version 2.
    private static bool IsBoundCell(JToken value)
    {
        Span<byte> bytes = stackalloc byte[512];
        return value.Type == JTokenType.String && Convert.TryFromBase64String((string)value!, bytes, out int length) && length > 2 && bytes[1] == 0x02;
    }
}

using Encryption.Custom.Cosmos.Queries;
using System.Text.Json.Nodes;
using Encryption.Custom.Cosmos.Serialization;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using FsCheck;
using FsCheck.Fluent;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Queries;

/// <summary>
/// The writer and the query agree: the ciphertext the query guard sends for <c>c.address.city = @city</c> (or a
/// card number compared inside an EXISTS over <c>c.cards</c>) is byte for byte the one both processors store at
/// that selector for the same value, so the service's equality finds the document.
/// </summary>
public sealed class NestedOperandAgreementTests
{
    private const string KeyId = "dek";

    private static readonly ContainerEncryptionPolicy s_policy = new(
        KeyId,
        [
            new EncryptionPolicyIncludedPath("/address/city") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/cards/[]/number") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/address/zip") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic },
        ])
    { Bind = false };

    private static readonly DataEncryptionKey s_key = TestKeys.Create(TestKeyKind.Protected);
    private static readonly TestEncryptor s_encryptor = new TestEncryptor().Add(KeyId, s_key);
    private static readonly CosmosSerializer s_serializer = new NewtonsoftItemSerializer(null);
    private static readonly QueryGuard s_guard = new(s_policy, s_encryptor, s_serializer);

    private static JsonObject Stored(JsonProcessor processor, string city, long zip, string card)
    {
        var document = new JsonObject
        {
            ["id"] = "1",
            ["ssn"] = city,
            ["address"] = new JsonObject { ["street"] = "1 Main St", ["city"] = city, ["zip"] = zip },
            ["cards"] = new JsonArray(new JsonObject { ["number"] = "other", ["expiry"] = "12/30" }, new JsonObject { ["number"] = card }),
        };
        byte[] written = Processors.Create(processor).Encrypt(document.ToJsonString(), s_key, s_policy.CreateWriteOptions());
        return JsonNode.Parse(written)!.AsObject();
    }

    private static string Sent(QueryDefinition query)
    {
        QueryDefinition sent = s_guard.Check(query);
        (string name, object value) = Assert.Single(sent.GetQueryParameters(), p => p.Name.StartsWith("@__enc", StringComparison.Ordinal));
        Assert.Contains(name, sent.QueryText, StringComparison.Ordinal);
        return Assert.IsType<string>(value);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void NestedLeafOperand_EqualsTheStoredCipherText(JsonProcessor processor)
    {
        JsonObject stored = Stored(processor, "Paris", 75001, "4111");

        Assert.Equal((string?)stored["address"]!["city"], Sent(new QueryDefinition("SELECT * FROM c WHERE c.address.city = @city").WithParameter("@city", "Paris")));
        Assert.Equal((string?)stored["address"]!["city"], Sent(new QueryDefinition("SELECT * FROM c WHERE c.address.city = 'Paris'")));
        Assert.Equal((string?)stored["address"]!["zip"], Sent(new QueryDefinition("SELECT * FROM c WHERE c.address.zip = 75001")));
        Assert.Equal((string?)stored["cards"]![1]!["number"], Sent(new QueryDefinition("SELECT * FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.cards WHERE t.number = @n)").WithParameter("@n", "4111")));

        // The same value under another selector is another ciphertext: the selector is bound into the IV.
        Assert.NotEqual((string?)stored["ssn"], (string?)stored["address"]!["city"]);
    }

    [Fact]
    public void GeneratedValues_QueryOperandAndStoredCell_AreTheSameBytes_ForBothProcessors()
    {
        // Valid UTF-16 text only: a lone surrogate is refused by the writer before anything is compared.
        Gen<string> text = ArbMap.Default.GeneratorFor<NonNull<string>>().Select(s => s.Get).Where(s => !s.Any(char.IsSurrogate));
        Prop.ForAll(text.ToArbitrary(), ArbMap.Default.ArbFor<long>(), (value, zip) =>
        {
            foreach (JsonProcessor processor in new[] { JsonProcessor.Stream, JsonProcessor.Newtonsoft })
            {
                JsonObject stored = Stored(processor, value, zip, value);
                string cityOperand = Sent(new QueryDefinition("SELECT * FROM c WHERE c.address.city = @city").WithParameter("@city", value));
                string zipOperand = Sent(new QueryDefinition("SELECT * FROM c WHERE c.address.zip = @zip").WithParameter("@zip", zip));
                string cardOperand = Sent(new QueryDefinition("SELECT VALUE c FROM c JOIN t IN c.cards WHERE t.number = @n").WithParameter("@n", value));
                if (cityOperand != (string?)stored["address"]!["city"] || zipOperand != (string?)stored["address"]!["zip"] || cardOperand != (string?)stored["cards"]![1]!["number"])
                {
                    return false.Label($"{processor}: operand and stored cell differ");
                }
            }

            return true.ToProperty();
        }).Check(Config.QuickThrowOnFailure.WithMaxTest(200));
    }
}

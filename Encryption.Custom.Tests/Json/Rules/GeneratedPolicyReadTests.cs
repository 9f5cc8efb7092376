using System.Buffers;
using System.Text;
using System.Text.Json;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Json.Rules;

/// <summary>
/// Strict-mode reads over generated documents that mix the policy's names with case variants, escaped spellings and
/// duplicates, holding plaintext, ciphertext (listed, unlisted, foreign) and nulls: whatever the shape, a read either
/// fails or returns no plaintext and no ciphertext at a policy path. Both processors.
/// </summary>
public sealed class GeneratedPolicyReadTests : IDisposable
{
    private const string Dek = "dek1";
    private const string ForeignDek = "dek-foreign";

    // Plaintext the documents hold: any of these returned at a policy path is a leak.
    private const string PlainMarker = "PLAIN-";

    private readonly DataEncryptionKey _key = TestKeys.Create(TestKeyKind.Protected);
    private readonly DataEncryptionKey _foreign = TestKeys.Create(TestKeyKind.Protected);
    private readonly TestEncryptor _encryptor;
    private readonly string _ssnCell;
    private readonly string _cardCell;
    private readonly string _foreignCell;
    private readonly ContainerEncryptionPolicy _policy = new(Dek, [new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic }, new EncryptionPolicyIncludedPath("/card")]);

    public GeneratedPolicyReadTests()
    {
        _encryptor = new TestEncryptor().Add(Dek, _key).Add(ForeignDek, _foreign);
        byte[] encrypted = new StreamProcessor().Encrypt("""{"id":"d","ssn":"SECRET-ssn","card":"SECRET-card"}""", _key, _policy.Rules.CreateWriteOptions());
        _ssnCell = TopLevelJson.Get(encrypted, "ssn").RawValue.Trim('"');
        _cardCell = TopLevelJson.Get(encrypted, "card").RawValue.Trim('"');
        _foreignCell = TopLevelJson.Get(new StreamProcessor().Encrypt("""{"id":"d","ssn":"SECRET-foreign"}""", _foreign, new EncryptionOptions { DataEncryptionKeyId = ForeignDek, PathsToEncrypt = ["/ssn"] }), "ssn").RawValue.Trim('"');
    }

    public static TheoryData<JsonProcessor> Kinds => Processors.All;

    public void Dispose()
    {
        _key.Dispose();
        _foreign.Dispose();
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void StrictRead_GeneratedDocuments_NeverReturnPlaintextOrCipherTextAtAPolicyPath(JsonProcessor kind)
    {
        EncryptionProcessor processor = EncryptionProcessor.Create(kind, rules: _policy.Rules);
        Gen<string[]> names = Gen.ArrayOf(Gen.Elements(
            "\"ssn\"", "\"SSN\"", "\"Ssn\"", "\"sSn\"", "\"\\u0073sn\"", "\"\\u0053SN\"", "\"card\"", "\"CARD\"", "\"Card\"", "\"c\\u0061rd\"", "\"ss\"", "\"other\"", "\"ssn \""));
        Gen<string> values = Gen.Elements(
            $"\"{PlainMarker}1\"", "42", "true", "null", $"{{\"x\":\"{PlainMarker}2\"}}", $"[\"{PlainMarker}3\"]",
            $"\"{_ssnCell}\"", $"\"{_cardCell}\"", $"\"{_foreignCell}\"", $"\"{Flip(_ssnCell)}\"", $"\"{_ssnCell.Replace("+", "\\u002B", StringComparison.Ordinal)}\"");
        Gen<string?> envelopes = Gen.Elements<string?>(null, "[\"/ssn\",\"/card\"]", "[\"/ssn\"]", "[\"/card\"]", "[]", "[\"/SSN\"]");
        Gen<(string[] Names, string[] Values, string? Ep)> documents =
            from n in names
            from v in Gen.ArrayOf(values, n.Length)
            from ep in envelopes
            select (n, v, ep);

        Prop.ForAll(documents.ToArbitrary(), d =>
        {
            byte[] document = Build(d.Names, d.Values, d.Ep);
            byte[] output;
            try
            {
                var buffer = new ArrayBufferWriter<byte>();
                processor.Decrypt(document, buffer, _encryptor);
                output = buffer.WrittenSpan.ToArray();
            }
            catch (EncryptionException)
            {
                return true;
            }

            return ReturnsOnlyDecryptedValuesAtPolicyPaths(output);
        }).QuickCheckThrowOnFailure();
    }

    private static byte[] Build(string[] names, string[] values, string? ep)
    {
        var json = new StringBuilder("{\"id\":\"d\"");
        for (int i = 0; i < names.Length; i++)
        {
            json.Append(',').Append(names[i]).Append(':').Append(values[i]);
        }

        if (ep is not null)
        {
            json.Append(",\"_ei\":{\"_ef\":3,\"_en\":\"").Append(Dek).Append("\",\"_ea\":\"").Append(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized).Append("\",\"_ed\":null,\"_ep\":").Append(ep).Append('}');
        }

        return Encoding.UTF8.GetBytes(json.Append('}').ToString());
    }

    // Every non-null value at a name that binds to a policy path is one the policy's key decrypted.
    private bool ReturnsOnlyDecryptedValuesAtPolicyPaths(byte[] output)
    {
        var reader = new Utf8JsonReader(output);
        reader.Read();
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            string name = reader.GetString()!;
            reader.Read();
            bool atPolicyPath = _policy.Rules.FindAtPath(name) >= 0;
            if (atPolicyPath && reader.TokenType != JsonTokenType.Null)
            {
                string? text = reader.TokenType == JsonTokenType.String ? reader.GetString() : null;
                if (text is not ("SECRET-ssn" or "SECRET-card"))
                {
                    return false;
                }
            }

            reader.Skip();
        }

        return true;
    }

    private static string Flip(string base64)
    {
        byte[] bytes = Convert.FromBase64String(base64);
        bytes[^1] ^= 1;
        return Convert.ToBase64String(bytes);
    }
}

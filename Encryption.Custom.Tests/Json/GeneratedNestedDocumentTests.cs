using System.Text;
using Encryption.Custom.Json;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using FsCheck;
using FsCheck.Fluent;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Json;

/// <summary>
/// Generated nested documents through both processors: whatever the shapes at and around the selectors (objects,
/// arrays of arrays, scalars where objects are expected, nulls, escaped names), a document either processor encrypts
/// decrypts with either processor to the original, and no generated secret is left readable in the stored form.
/// </summary>
public sealed class GeneratedNestedDocumentTests : IDisposable
{
    private const string Dek = "dek1";
    private const string Secret = "SECRET-";

    private readonly DataEncryptionKey _key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
    private readonly TestEncryptor _encryptor = new();
    private readonly ContainerEncryptionPolicy _policy = new(Dek, ["/address/city", "/cards/[]/number", "/m/[]/[]", "/o/p/q", "/ssn"]) { Bind = false };

    public GeneratedNestedDocumentTests()
    {
        _encryptor.Add(Dek, _key);
    }

    public void Dispose() => _key.Dispose();

    [Theory]
    [MemberData(nameof(Processors.Pairs), MemberType = typeof(Processors))]
    public void GeneratedDocuments_RoundTripAcrossProcessors_WithNoSelectedValueLeftReadable(JsonProcessor writer, JsonProcessor reader)
    {
        EncryptionProcessor encrypting = EncryptionProcessor.Create(writer);
        EncryptionProcessor decrypting = EncryptionProcessor.Create(reader, rules: _policy.Rules);

        Prop.ForAll(Documents().ToArbitrary(), document =>
        {
            byte[] encrypted = encrypting.Encrypt(document, _key, _policy.Rules.CreateWriteOptions());
            if (encrypted.Utf8().Contains(Secret, StringComparison.Ordinal))
            {
                return false;
            }

            byte[] decrypted = decrypting.Decrypt(encrypted, _encryptor);
            return JToken.DeepEquals(JObject.Parse(document), JObject.Parse(decrypted.Utf8()));
        }).QuickCheckThrowOnFailure();
    }

    // Secrets appear only where a selector picks them (inside a selected container too); plain values elsewhere.
    private static Gen<string> Documents()
    {
        Gen<string> plain = Gen.Elements("\"plain\"", "1", "2.5", "true", "null", "{}", "[]", "{\"x\":\"plain\"}", "[1,\"plain\"]", "\"p\\u00e9\\n\"");
        Gen<string> secret = Gen.Elements($"\"{Secret}a\"", "-7", "3.25e10", "false", $"{{\"x\":\"{Secret}o\"}}", $"[\"{Secret}arr\",1]", $"\"{Secret}\\u00e9\\\"\"", "null");
        Gen<string> card = from number in secret
                           from expiry in plain
                           from nameKind in Gen.Elements("\"number\"", "\"n\\u0075mber\"")
                           from shape in Gen.Elements(0, 1, 2)
                           select shape switch
                           {
                               0 => $"{{{nameKind}:{number},\"expiry\":{expiry}}}",
                               1 => $"{{\"expiry\":{expiry}}}",
                               _ => expiry,
                           };
        Gen<string> cards = from items in Gen.ArrayOf(card) select $"[{string.Join(',', items)}]";
        Gen<string> matrix = from rows in Gen.ArrayOf(Gen.ArrayOf(secret)) select $"[{string.Join(',', rows.Select(r => $"[{string.Join(',', r)}]"))}]";
        Gen<string> address = from city in secret
                              from zip in plain
                              from shape in Gen.Elements(0, 1, 2)
                              select shape switch
                              {
                                  0 => $"{{\"zip\":{zip},\"city\":{city}}}",
                                  1 => $"{{\"zip\":{zip}}}",
                                  _ => zip,
                              };
        Gen<string> deep = from q in secret
                           from other in plain
                           select $"{{\"p\":{{\"q\":{q},\"r\":{other}}},\"s\":{other}}}";
        return from mask in Gen.Choose(0, 63)
               from a in address
               from c in cards
               from m in matrix
               from o in deep
               from x in secret
               from p in plain
               let parts = new[] { $"\"address\":{a}", $"\"cards\":{c}", $"\"m\":{m}", $"\"o\":{o}", $"\"ssn\":{x}", $"\"other\":{p}" }
               select $"{{\"id\":\"d\"{string.Concat(parts.Where((_, i) => (mask & (1 << i)) != 0).Select(v => "," + v))}}}";
    }
}

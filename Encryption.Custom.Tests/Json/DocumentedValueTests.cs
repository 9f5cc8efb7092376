using System.Text.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary>
/// What README and docs/json.md promise about values users are surprised by: an encrypted <c>decimal</c> comes back
/// as the nearest double, and an absent or null property stays visible (not encrypted, not listed).
/// </summary>
public sealed class DocumentedValueTests : IDisposable
{
    private const string KeyId = "dek";
    private readonly DataEncryptionKey _key = TestKeys.Create(TestKeyKind.Protected);
    private readonly TestEncryptor _encryptor = new();

    public DocumentedValueTests() => _encryptor.Add(KeyId, _key);

    public void Dispose() => _key.Dispose();

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decimal_MoreDigitsThanADouble_ComesBackAsTheNearestDouble(JsonProcessor kind)
    {
        const decimal amount = 1234567890.123456789m;
        string document = "{\"id\":\"1\",\"amount\":" + amount.ToString(System.Globalization.CultureInfo.InvariantCulture) + "}";
        EncryptionProcessor processor = Processors.Create(kind);

        byte[] encrypted = processor.Encrypt(document, _key, Options("/amount"));
        JsonElement decrypted = JsonDocument.Parse(processor.Decrypt(encrypted, _encryptor)).RootElement.GetProperty("amount");

        Assert.Equal((double)amount, decrypted.GetDouble());
        Assert.NotEqual(amount, decrypted.GetDecimal());
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void NullOrAbsent_ListedProperty_StaysVisibleAndUnlisted(JsonProcessor kind)
    {
        EncryptionProcessor processor = Processors.Create(kind);

        byte[] encrypted = processor.Encrypt("{\"id\":\"1\",\"ssn\":null,\"name\":\"x\"}", _key, Options("/ssn", "/absent", "/name"));

        JsonElement stored = JsonDocument.Parse(encrypted).RootElement;
        Assert.Equal(JsonValueKind.Null, stored.GetProperty("ssn").ValueKind);
        Assert.False(stored.TryGetProperty("absent", out _));
        string[] listed = [.. stored.GetProperty("_ei").GetProperty("_ep").EnumerateArray().Select(path => path.GetString()!)];
        Assert.Equal(["/name"], listed);
    }

    private static EncryptionOptions Options(params string[] paths) => new() { DataEncryptionKeyId = KeyId, PathsToEncrypt = paths };
}

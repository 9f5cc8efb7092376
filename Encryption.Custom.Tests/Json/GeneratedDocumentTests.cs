using System.Text.Json;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Keys;
using Encryption.Custom.Tests.TestSupport;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Json;

/// <summary>Round trips over FsCheck-generated documents, within and across processors.</summary>
public abstract class GeneratedDocumentTests : IDisposable
{
    private readonly DataEncryptionKey _key;
    private readonly TestEncryptor _encryptor = new();

    protected GeneratedDocumentTests(TestKeyKind keyKind)
    {
        KeyKind = keyKind;
        _key = TestKeys.Create(keyKind);
        _encryptor.Add(DocumentShapes.KeyId, _key);
    }

    protected TestKeyKind KeyKind { get; }

    public void Dispose()
    {
        _key.Dispose();
        GC.SuppressFinalize(this);
    }

    [Theory]
    [MemberData(nameof(Processors.Pairs), MemberType = typeof(Processors))]
    public void RoundTrip_GeneratedDocuments_GiveTheSameJsonValue(JsonProcessor encryptWith, JsonProcessor decryptWith)
    {
        EncryptionProcessor encryptor = Processors.Create(encryptWith);
        EncryptionProcessor decryptor = Processors.Create(decryptWith);

        Prop.ForAll(JsonGenerators.Documents, shape =>
        {
            byte[] encrypted = encryptor.Encrypt(shape.Utf8, _key, shape.Options());
            byte[] decrypted = decryptor.Decrypt(encrypted, _encryptor);
            JsonAssert.Equivalent(shape.Utf8, decrypted);
        }).QuickCheckThrowOnFailure();
    }

    [Fact]
    public void StreamEncrypt_GeneratedDocuments_LeavesEveryOtherByteAsItWas()
    {
        var processor = new StreamProcessor();

        Prop.ForAll(JsonGenerators.Documents, shape =>
        {
            byte[] encrypted = processor.Encrypt(shape.Utf8, _key, shape.Options());

            var kept = TopLevelJson.ReadProperties(shape.Utf8).Where(p => !shape.Paths.Contains("/" + p.Name) || p.ValueType == JsonTokenType.Null).ToList();
            var after = TopLevelJson.ReadProperties(encrypted).Where(p => kept.Any(k => k.Name == p.Name)).ToList();
            Assert.Equal(kept, after);
        }).QuickCheckThrowOnFailure();
    }

    [Fact]
    public void StreamDecrypt_GeneratedDocuments_IsIdempotentOnDecryptedOutput()
    {
        // Decrypting what decryption wrote (no _ei any more) copies it through unchanged.
        var processor = new StreamProcessor();

        Prop.ForAll(JsonGenerators.Documents, shape =>
        {
            byte[] decrypted = processor.Decrypt(processor.Encrypt(shape.Utf8, _key, shape.Options()), _encryptor);
            Assert.Equal(decrypted, processor.Decrypt(decrypted, _encryptor));
        }).QuickCheckThrowOnFailure();
    }
}

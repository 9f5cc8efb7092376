using System.Buffers;
using System.Text;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Tests.TestSupport;

/// <summary>Array-in, array-out conveniences over the processors' span APIs.</summary>
public static class ProcessorExtensions
{
    public static byte[] Encrypt(this EncryptionProcessor processor, byte[] document, DataEncryptionKey key, EncryptionOptions options)
    {
        var output = new ArrayBufferWriter<byte>();
        processor.Encrypt(document, output, key, options);
        return output.WrittenSpan.ToArray();
    }

    public static byte[] Encrypt(this EncryptionProcessor processor, string document, DataEncryptionKey key, EncryptionOptions options) =>
        processor.Encrypt(Encoding.UTF8.GetBytes(document), key, options);

    public static byte[] Decrypt(this EncryptionProcessor processor, byte[] document, Encryptor encryptor) =>
        processor.Decrypt(document, encryptor, out _);

    public static byte[] Decrypt(this EncryptionProcessor processor, byte[] document, Encryptor encryptor, out DecryptionContext? context)
    {
        var output = new ArrayBufferWriter<byte>();
        context = processor.Decrypt(document, output, encryptor, includeDecryptionContext: true);
        return output.WrittenSpan.ToArray();
    }

    public static string Utf8(this byte[] bytes) => Encoding.UTF8.GetString(bytes);

    public static byte[] Utf8(this string text) => Encoding.UTF8.GetBytes(text);
}

using System.Buffers;
using System.Globalization;
using System.Text;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Performance.Tests.Documents;

/// <summary>Query and change-feed pages of encrypted benchmark documents, as Cosmos returns them.</summary>
public static class FeedPages
{
    /// <summary>
    /// <c>{"_rid":"…","Documents":[d0,…],"_count":n}</c> where document <c>i</c> is generated with seed
    /// <see cref="BenchmarkDocuments.DefaultSeed"/> + <c>i</c> and encrypted by the stream processor with <paramref name="key"/>.
    /// </summary>
    public static byte[] Build(DocumentShape shape, int documentSize, int count, DataEncryptionKey key)
    {
        ArgumentNullException.ThrowIfNull(key);
        var processor = new StreamProcessor();
        var page = new ArrayBufferWriter<byte>(count * documentSize * 2);
        page.Write("{\"_rid\":\"bWVhc3VyZQ==\",\"Documents\":["u8);
        for (int i = 0; i < count; i++)
        {
            if (i > 0)
            {
                page.Write(","u8);
            }

            BenchmarkDocument document = BenchmarkDocuments.Create(shape, documentSize, BenchmarkDocuments.DefaultSeed + i);
            processor.Encrypt(document.Utf8, page, key, document.CreateOptions());
        }

        page.Write(Encoding.ASCII.GetBytes(string.Create(CultureInfo.InvariantCulture, $"],\"_count\":{count}}}")));
        return page.WrittenSpan.ToArray();
    }
}

using System.Text;
using BenchmarkDotNet.Attributes;
using Encryption.Custom.Cosmos;
using Encryption.Custom.Json;
using Encryption.Custom.Keys;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Performance.Tests.Cosmos;

/// <summary>
/// A stream create followed by a stream read (body consumed and disposed), over an in-memory container: the
/// plain container is the baseline, so the difference is what the encryption container adds (encrypting the
/// body, decrypting the create response and the read response, and its own objects).
/// </summary>
[MemoryDiagnoser]
public class ContainerPointOperationBenchmarks
{
    private const int OperationsPerInvoke = 16;

    private readonly PartitionKey _partitionKey = new("p0");
    private DataEncryptionKey _key = null!;
    private Container _plain = null!;
    private Container _encrypted = null!;
    private byte[] _document = [];
    private byte[] _sink = [];
    private EncryptionItemRequestOptions _options = null!;

    [Params(1, 8, 64)]
    public int DocumentKilobytes { get; set; }

    [Params(JsonProcessor.Stream, JsonProcessor.Newtonsoft)]
    public JsonProcessor Processor { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        _plain = new EchoContainer();
        _encrypted = new EchoContainer().WithEncryptor(new FixedKeyEncryptor(_key), new EncryptionContainerOptions { JsonProcessor = Processor });
        (_document, string[] paths) = CreateDocument(DocumentKilobytes * 1024);
        _sink = new byte[_document.Length * 2];
        _options = new EncryptionItemRequestOptions
        {
            EncryptionOptions = new EncryptionOptions { DataEncryptionKeyId = "dek", PathsToEncrypt = paths, JsonProcessor = Processor },
        };
    }

    [GlobalCleanup]
    public void Cleanup() => _key.Dispose();

    [Benchmark(Baseline = true, OperationsPerInvoke = OperationsPerInvoke)]
    public async Task<int> PlainContainer()
    {
        int total = 0;
        for (int i = 0; i < OperationsPerInvoke; i++)
        {
            total += await CreateAndReadAsync(_plain, null);
        }

        return total;
    }

    [Benchmark(OperationsPerInvoke = OperationsPerInvoke)]
    public async Task<int> EncryptionContainer()
    {
        int total = 0;
        for (int i = 0; i < OperationsPerInvoke; i++)
        {
            total += await CreateAndReadAsync(_encrypted, _options);
        }

        return total;
    }

    private async Task<int> CreateAndReadAsync(Container container, ItemRequestOptions? options)
    {
        using var body = new MemoryStream(_document, 0, _document.Length, writable: false, publiclyVisible: true);
        int total = 0;
        using (ResponseMessage created = await container.CreateItemStreamAsync(body, _partitionKey, options))
        {
            total += Drain(created.Content);
        }

        using (ResponseMessage read = await container.ReadItemStreamAsync("doc", _partitionKey))
        {
            total += Drain(read.Content);
        }

        return total;
    }

    private int Drain(Stream content)
    {
        int total = 0;
        int read;
        while ((read = content.Read(_sink)) > 0)
        {
            total += read;
        }

        return total;
    }

    /// <summary>A mixed document of about <paramref name="bytes"/> bytes: half in ~400-byte encrypted strings, plus numbers, booleans, an object and an array.</summary>
    private static (byte[] Document, string[] Paths) CreateDocument(int bytes)
    {
        var json = new StringBuilder("{\"id\":\"doc\",\"pk\":\"p0\"");
        var paths = new List<string>();
        var random = new Random(42);
        int i = 0;
        while (json.Length < bytes)
        {
            string name = "p" + i.ToString(System.Globalization.CultureInfo.InvariantCulture);
            bool encrypt = i % 2 == 0;
            string value = (i % 5) switch
            {
                0 or 2 => "\"" + new string((char)('a' + random.Next(26)), 400) + "\"",
                1 => random.NextInt64().ToString(System.Globalization.CultureInfo.InvariantCulture),
                3 => "{\"inner\":\"" + new string('x', 60) + "\",\"n\":[1,2,3],\"flag\":true}",
                _ => random.Next(2) == 0 ? "true" : "false",
            };
            json.Append(",\"").Append(name).Append("\":").Append(value);
            if (encrypt)
            {
                paths.Add("/" + name);
            }

            i++;
        }

        json.Append('}');
        return (Encoding.UTF8.GetBytes(json.ToString()), [.. paths]);
    }
}

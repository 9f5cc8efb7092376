using System.Text;
using System.Text.Json;
using Encryption.Custom.Crypto.Binding;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Crypto.Binding;

/// <summary>
/// The bound-cell known-answer vectors in eng/vectors/bound-cell-vectors.json, computed by an independent script
/// (eng/vectors/bound-cell-vectors.mjs, Node's crypto module) from docs/wire-format.md alone.
/// </summary>
internal static class BoundCellVectors
{
    private static readonly Lazy<JsonDocument> s_document = new(() =>
        JsonDocument.Parse(File.ReadAllText(RepositoryFiles.Path("eng", "vectors", "bound-cell-vectors.json"))));

    public static JsonElement Root => s_document.Value.RootElement;

    public static byte[] RootKey => Hex(Root.GetProperty("rootKeyHex"));

    public static byte[] Key(string name) => Hex(Root.GetProperty("keys").GetProperty(name + "Hex"));

    public static IEnumerable<JsonElement> All => Root.GetProperty("vectors").EnumerateArray();

    public static JsonElement Get(string name) => All.Single(v => v.GetProperty("name").GetString() == name);

    public static byte[] Hex(JsonElement element) => Convert.FromHexString(element.GetString()!);

    /// <summary>D of a vector, through the library's builder.</summary>
    public static byte[] Digest(JsonElement vector)
    {
        JsonElement partitionKey = vector.GetProperty("partitionKey");
        var builder = BindingDigestBuilder.Create(
            stackalloc byte[BindingDigestBuilder.RecommendedScratchSize],
            (uint)vector.GetProperty("format").GetInt32(),
            vector.GetProperty("algorithm").GetString(),
            vector.GetProperty("dataEncryptionKeyId").GetString(),
            vector.GetProperty("scope").GetString(),
            Encoding.UTF8.GetBytes(vector.GetProperty("id").GetString()!),
            partitionKey.GetArrayLength());
        foreach (JsonElement component in partitionKey.EnumerateArray())
        {
            switch (component.GetProperty("type").GetString())
            {
                case "undefined": builder.AddUndefined(); break;
                case "null": builder.AddNull(); break;
                case "boolean": builder.AddBoolean(component.GetProperty("value").GetBoolean()); break;
                case "number": builder.AddNumber(component.GetProperty("value").GetDouble()); break;
                case "string": builder.AddString(Encoding.UTF8.GetBytes(component.GetProperty("value").GetString()!)); break;
                default: throw new InvalidDataException("Unknown partition-key component type in the vectors.");
            }
        }

        byte[] digest = new byte[BindingDigestBuilder.DigestSize];
        builder.Finish(digest);
        return digest;
    }

    /// <summary>A of a vector, through the library's layout.</summary>
    public static byte[] AssociatedData(JsonElement vector, byte[] digest)
    {
        byte[] selector = Encoding.UTF8.GetBytes(vector.GetProperty("selector").GetString()!);
        byte[] associatedData = new byte[BoundCellAssociatedData.GetLength(selector.Length)];
        BoundCellAssociatedData.Write(digest, (byte)vector.GetProperty("marker").GetInt32(), selector, associatedData);
        return associatedData;
    }

    public static TheoryData<string> Names
    {
        get
        {
            var data = new TheoryData<string>();
            foreach (JsonElement vector in All)
            {
                data.Add(vector.GetProperty("name").GetString()!);
            }

            return data;
        }
    }

    public static TheoryData<AeadBackendKind, string> NamesWithBackends
    {
        get
        {
            var data = new TheoryData<AeadBackendKind, string>();
            foreach (AeadBackendKind backend in Enum.GetValues<AeadBackendKind>())
            {
                foreach (JsonElement vector in All)
                {
                    data.Add(backend, vector.GetProperty("name").GetString()!);
                }
            }

            return data;
        }
    }
}

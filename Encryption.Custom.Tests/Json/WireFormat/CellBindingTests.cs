using System.Text;
using System.Text.Json;
using Encryption.Custom.Crypto.Binding;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Encryption.Custom.Tests.Crypto.Binding;

namespace Encryption.Custom.Tests.Json.WireFormat;

/// <summary>
/// The Json-layer seam for bound values: a document's <see cref="CellBinding"/> built from the JSON it holds, and
/// <see cref="BoundValueCodec"/> encoding and refusing values with it (docs/wire-format.md "Bound cells").
/// </summary>
public sealed class CellBindingTests
{
    private const string Algorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

    [Theory]
    [InlineData("hierarchical partition key, array wildcard selector", "card-holder", new[] { "\"tenant-a\"", "1e21", "false" })]
    [InlineData("hierarchical partition key, array wildcard selector", "card-holder", new[] { "\"tenant\\u002da\"", "1000000000000000000000.0", "false" })]
    [InlineData("number partition key, nested selector", "order-7", new[] { "42.50" })]
    [InlineData("negative zero partition key is zero", "n", new[] { "0" })]
    [InlineData("negative zero partition key is zero", "n", new[] { "-0.0" })]
    [InlineData("null partition key", "z", new[] { "null" })]
    [InlineData("true partition key, double value", "b", new[] { "true" })]
    [InlineData("unicode id, partition key and scope", "ドキュメント-😀", new[] { "\"\\u00fc\"", null })]
    public void Build_PartitionKeyFromJsonTokens_IsTheVectorDigest(string vectorName, string id, string?[] partitionKey)
    {
        JsonElement vector = BoundCellVectors.Get(vectorName);

        CellBinding binding = Bind(vector, Encoding.UTF8.GetBytes(id), partitionKey);

        Assert.Equal(vector.GetProperty("digestHex").GetString(), Convert.ToHexStringLower(binding.GetDocumentDigest()));
    }

    [Theory]
    [InlineData("{}")]
    [InlineData("[1]")]
    [InlineData("1e400")]
    [InlineData("\"\\ud800\"")]
    [InlineData("1 2")]
    [InlineData("")]
    [InlineData("tru")]
    public void AddJsonValue_NotAPartitionKeyValue_IsMalformedDocument(string raw)
    {
        var exception = Assert.Throws<EncryptionException>(() =>
        {
            var builder = CellBindingBuilder.Create(new byte[64], Algorithm, "dek", "db/c", "id"u8, 1);
            try
            {
                builder.AddJsonValue(Encoding.UTF8.GetBytes(raw));
            }
            finally
            {
                builder.Dispose();
            }
        });

        Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
    }

    [Fact]
    public void TryDecrypt_VectorValueUnderItsDocument_ReturnsThePlaintext()
    {
        JsonElement vector = BoundCellVectors.Get("string partition key, string value");
        using DataEncryptionKey key = DataEncryptionKey.Create(BoundCellVectors.RootKey, Algorithm);
        using DataEncryptionKeyLease lease = DataEncryptionKeyLease.Acquire(key);
        CellBinding alice = Bind(vector, "alice"u8.ToArray(), ["\"alice\""]);

        EncryptedValueStatus status = Decrypt(key, alice, "/ssn"u8, vector.GetProperty("valueBase64").GetString()!, out TypeMarker marker, out byte[] plainText);

        Assert.Equal(EncryptedValueStatus.Valid, status);
        Assert.Equal(TypeMarker.String, marker);
        Assert.Equal("078-05-1120"u8.ToArray(), plainText);
    }

    [Fact]
    public void TryDecrypt_AlicesValueCopiedIntoBobsDocument_IsCellBindingMismatch()
    {
        JsonElement vector = BoundCellVectors.Get("string partition key, string value");
        using DataEncryptionKey key = DataEncryptionKey.Generate(Algorithm);
        using DataEncryptionKeyLease lease = DataEncryptionKeyLease.Acquire(key);
        CellBinding alice = Bind(vector, "alice"u8.ToArray(), ["\"alice\""]);
        CellBinding bob = Bind(vector, "bob"u8.ToArray(), ["\"bob\""]);
        string aliceSsn = Encode(key, alice, "/ssn"u8, TypeMarker.String, "078-05-1120"u8);

        EncryptedValueStatus inBob = Decrypt(key, bob, "/ssn"u8, aliceSsn, out _, out byte[] leaked);
        EncryptedValueStatus atOtherPath = Decrypt(key, alice, "/taxId"u8, aliceSsn, out _, out _);
        EncryptedValueStatus home = Decrypt(key, alice, "/ssn"u8, aliceSsn, out _, out byte[] plainText);

        Assert.Equal(EncryptedValueStatus.BindingMismatch, inBob);
        Assert.Empty(leaked);
        Assert.Equal(EncryptedValueStatus.BindingMismatch, atOtherPath);
        Assert.Equal(EncryptedValueStatus.Valid, home);
        Assert.Equal("078-05-1120"u8.ToArray(), plainText);
        EncryptionException error = JsonErrors.CreateInvalidValue(inBob, "/ssn", "dek-1");
        Assert.Equal(EncryptionErrorKind.CellBindingMismatch, error.Kind);
        Assert.Contains("'/ssn'", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("078", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void TryDecrypt_MarkerRewritten_IsCellBindingMismatch()
    {
        using DataEncryptionKey key = DataEncryptionKey.Generate(Algorithm);
        using DataEncryptionKeyLease lease = DataEncryptionKeyLease.Acquire(key);
        CellBinding binding = Bind(BoundCellVectors.Get("integer partition key, long value"), "n"u8.ToArray(), ["7"]);
        byte[] blob = Convert.FromBase64String(Encode(key, binding, "/limit"u8, TypeMarker.Long, BitConverter.GetBytes(42L)));
        blob[0] = (byte)TypeMarker.Double;

        Assert.Equal(EncryptedValueStatus.BindingMismatch, Decrypt(key, binding, "/limit"u8, Convert.ToBase64String(blob), out _, out _));
    }

    [Fact]
    public void TryDecrypt_FormatThreeValueWhereABoundOneIsRequired_IsNotBound()
    {
        using DataEncryptionKey key = DataEncryptionKey.Generate(Algorithm);
        using DataEncryptionKeyLease lease = DataEncryptionKeyLease.Acquire(key);
        CellBinding binding = Bind(BoundCellVectors.Get("string partition key, string value"), "alice"u8.ToArray(), ["\"alice\""]);
        byte[] unbound = new byte[EncryptedValueCodec.GetEncodedLength(key, 3)];
        int written = EncryptedValueCodec.Encode(key, TypeMarker.String, "abc"u8, unbound);

        EncryptedValueStatus status = Decrypt(key, binding, "/ssn"u8, Encoding.ASCII.GetString(unbound, 0, written), out _, out _);

        Assert.Equal(EncryptedValueStatus.NotBound, status);
        Assert.Equal(EncryptionErrorKind.CellBindingMismatch, JsonErrors.CreateInvalidValue(status, "/ssn", "dek-1").Kind);
    }

    [Fact]
    public void FormatThreeDecode_BoundValue_IsNotAuthenticWhichReadersReportAsInvalidCipherText()
    {
        using DataEncryptionKey key = DataEncryptionKey.Generate(Algorithm);
        using DataEncryptionKeyLease lease = DataEncryptionKeyLease.Acquire(key);
        CellBinding binding = Bind(BoundCellVectors.Get("string partition key, string value"), "alice"u8.ToArray(), ["\"alice\""]);
        byte[] base64 = Encoding.ASCII.GetBytes(Encode(key, binding, "/ssn"u8, TypeMarker.String, "078-05-1120"u8));
        byte[] blob = new byte[EncryptedValueCodec.GetMaxBlobLength(base64.Length)];
        byte[] output = new byte[EncryptedValueCodec.GetMaxPlainTextLength(key, base64.Length)];

        EncryptedValueStatus status = EncryptedValueCodec.TryDecrypt(key, base64, blob, output, out _, out int written);

        // A format 3 reader never passes a bound value through as data, and never decrypts it.
        Assert.Equal(EncryptedValueStatus.NotAuthentic, status);
        Assert.Equal(0, written);
        Assert.Equal(EncryptionErrorKind.InvalidCipherText, JsonErrors.CreateInvalidValue(status, "/ssn", "dek-1").Kind);
    }

    [Fact]
    public void WriteAssociatedData_DefaultBinding_Throws()
    {
        CellBinding empty = default;

        Assert.True(empty.IsEmpty);
        Assert.Throws<InvalidOperationException>(() => empty.WriteAssociatedData(TypeMarker.String, "/a"u8, new byte[100]));
    }

    [Fact]
    public void EncodeAndTryDecrypt_AfterWarmUp_AllocateNothing()
    {
        using DataEncryptionKey key = DataEncryptionKey.Generate(Algorithm);
        using DataEncryptionKeyLease lease = DataEncryptionKeyLease.Acquire(key);
        CellBinding binding = Bind(BoundCellVectors.Get("string partition key, string value"), "alice"u8.ToArray(), ["\"alice\""]);
        byte[] plainText = new byte[300];
        byte[] selector = Encoding.ASCII.GetBytes("/cards/[]/number");
        byte[] encoded = new byte[BoundValueCodec.GetEncodedLength(key, plainText.Length)];
        byte[] output = new byte[EncryptedValueCodec.GetMaxPlainTextLength(key, encoded.Length)];
        Run(20);

        long before = GC.GetAllocatedBytesForCurrentThread();
        Run(200);

        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);

        void Run(int iterations)
        {
            for (int i = 0; i < iterations; i++)
            {
                int length = BoundValueCodec.Encode(key, binding, selector, TypeMarker.String, plainText, encoded);
                BoundValueCodec.TryDecrypt(key, binding, selector, encoded.AsSpan(0, length), output, out _, out _);
            }
        }
    }

    private static CellBinding Bind(JsonElement vector, byte[] id, string?[] partitionKey)
    {
        var builder = CellBindingBuilder.Create(
            stackalloc byte[BindingDigestBuilder.RecommendedScratchSize],
            vector.GetProperty("algorithm").GetString()!,
            vector.GetProperty("dataEncryptionKeyId").GetString()!,
            vector.GetProperty("scope").GetString()!,
            id,
            partitionKey.Length,
            (uint)vector.GetProperty("format").GetInt32());
        foreach (string? raw in partitionKey)
        {
            if (raw is null)
            {
                builder.AddMissing();
            }
            else
            {
                builder.AddJsonValue(Encoding.UTF8.GetBytes(raw));
            }
        }

        return builder.Build();
    }

    private static string Encode(DataEncryptionKey key, in CellBinding binding, ReadOnlySpan<byte> selector, TypeMarker marker, ReadOnlySpan<byte> plainText)
    {
        byte[] destination = new byte[BoundValueCodec.GetEncodedLength(key, plainText.Length)];
        int written = BoundValueCodec.Encode(key, binding, selector, marker, plainText, destination);
        return Encoding.ASCII.GetString(destination, 0, written);
    }

    private static EncryptedValueStatus Decrypt(DataEncryptionKey key, in CellBinding binding, ReadOnlySpan<byte> selector, string value, out TypeMarker marker, out byte[] plainText)
    {
        byte[] base64 = Encoding.ASCII.GetBytes(value);
        byte[] output = new byte[EncryptedValueCodec.GetMaxPlainTextLength(key, base64.Length)];
        EncryptedValueStatus status = BoundValueCodec.TryDecrypt(key, binding, selector, base64, output, out marker, out int length);
        plainText = output[..length];
        return status;
    }
}

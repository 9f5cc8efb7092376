using System.Text;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json.WireFormat;

/// <summary>
/// <see cref="EncryptedValueCodec.TryCheckDeterministic"/>: whether a stored value is the deterministic encryption of
/// its plaintext for a path (what the migration job needs to tell a randomized cell from a deterministic one), for
/// the library's key and for the reference key written from wire-format.md alone.
/// </summary>
public sealed class DeterministicCellCheckTests
{
    private static readonly byte[] s_ssn = DeterministicIvContext.CreatePathPrefix("/ssn");
    private static readonly byte[] s_taxId = DeterministicIvContext.CreatePathPrefix("/taxId");

    public static TheoryData<TestKeyKind, int> Cases => new()
    {
        { TestKeyKind.Protected, 11 },
        { TestKeyKind.Reference, 11 },
        { TestKeyKind.Protected, 1000 }, // beyond the stack scratch
        { TestKeyKind.Reference, 1000 },
    };

    private static byte[] Encode(DataEncryptionKey key, byte[] plainText, ReadOnlySpan<byte> deterministicPath)
    {
        byte[] encoded = new byte[EncryptedValueCodec.GetEncodedLength(key, plainText.Length)];
        int length = EncryptedValueCodec.Encode(key, TypeMarker.String, plainText, encoded, deterministicPath);
        return encoded[..length];
    }

    private static bool Check(DataEncryptionKey key, byte[] value, byte[] pathPrefix)
    {
        Assert.Equal(EncryptedValueStatus.Valid, EncryptedValueCodec.TryCheckDeterministic(key, value, pathPrefix, out bool deterministic));
        return deterministic;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void DeterministicCell_IsDeterministicForItsPathOnly(TestKeyKind kind, int length)
    {
        using DataEncryptionKey key = TestKeys.Create(kind);
        byte[] plainText = Encoding.UTF8.GetBytes(new string('7', length));

        byte[] deterministic = Encode(key, plainText, s_ssn);
        byte[] randomized = Encode(key, plainText, default);

        Assert.True(Check(key, deterministic, s_ssn));
        Assert.False(Check(key, randomized, s_ssn));
        Assert.False(Check(key, deterministic, s_taxId));
    }

    [Fact]
    public void TamperedValue_IsNotAuthentic()
    {
        using DataEncryptionKey key = TestKeys.Create(TestKeyKind.Protected);
        byte[] value = Encode(key, "078-05-1120"u8.ToArray(), s_ssn);
        value[10] = value[10] == (byte)'A' ? (byte)'B' : (byte)'A';

        Assert.Equal(EncryptedValueStatus.NotAuthentic, EncryptedValueCodec.TryCheckDeterministic(key, value, s_ssn, out bool deterministic));
        Assert.False(deterministic);
    }

    [Fact]
    public void AnotherKey_IsNotAuthentic()
    {
        using DataEncryptionKey writer = TestKeys.Create(TestKeyKind.Protected);
        using DataEncryptionKey reader = TestKeys.Create(TestKeyKind.Protected);

        Assert.Equal(EncryptedValueStatus.NotAuthentic, EncryptedValueCodec.TryCheckDeterministic(reader, Encode(writer, "x"u8.ToArray(), s_ssn), s_ssn, out _));
    }
}

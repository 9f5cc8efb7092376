using System.Security.Cryptography;
using System.Text;
using Encryption.Custom.Crypto;
using Encryption.Custom.Crypto.Binding;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Crypto.Binding;

/// <summary>
/// A bound cell verifies only under the exact document, container, key, path and type it was written for
/// (docs/wire-format.md "Bound cells"); anything else is a distinct, honest refusal.
/// </summary>
public sealed class BoundCellTests
{
    public static TheoryData<AeadBackendKind> Backends => AeadBackends.All;

    // Every field of the binding, changed one at a time from the baseline below.
    public static TheoryData<AeadBackendKind, string> BackendsAndChanges
    {
        get
        {
            var data = new TheoryData<AeadBackendKind, string>();
            foreach (AeadBackendKind backend in Enum.GetValues<AeadBackendKind>())
            {
                foreach (string change in (string[])["id", "partitionKey", "partitionKeyType", "scope", "dataEncryptionKeyId", "algorithm", "format", "selector", "marker"])
                {
                    data.Add(backend, change);
                }
            }

            return data;
        }
    }

    [Theory]
    [MemberData(nameof(BackendsAndChanges))]
    public void TryDecryptBound_OneBindingFieldChanged_IsBindingMismatch(AeadBackendKind backend, string change)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[] plainText = "078-05-1120"u8.ToArray();
        byte[] cell = new byte[AeadAes256CbcHmacSha256.GetCipherTextLength(plainText.Length)];
        aead.EncryptBound(Binding(), plainText, cell);
        byte[] output = new byte[cell.Length];

        AeadCellCheck moved = aead.TryDecryptBound(Binding(change), cell, output, out int written);
        AeadCellCheck home = aead.TryDecryptBound(Binding(), cell, output, out int homeWritten);

        Assert.Equal(AeadCellCheck.BindingMismatch, moved);
        Assert.Equal(0, written);
        Assert.Equal(AeadCellCheck.Valid, home);
        Assert.Equal(plainText, output[..homeWritten]);
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void DecryptBound_CellFromAnotherDocument_ThrowsCellBindingMismatchWithAFixedMessage(AeadBackendKind backend)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[] cell = EncryptBoundCell(aead, Binding(), "078-05-1120"u8);

        var exception = Assert.Throws<EncryptionException>(() => aead.DecryptBound(Binding("id"), cell, new byte[cell.Length]));

        Assert.Equal(EncryptionErrorKind.CellBindingMismatch, exception.Kind);
        Assert.Equal(AeadErrors.BindingMismatchMessage, exception.Message);
        Assert.DoesNotContain("078", exception.Message, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void TryDecryptBound_FlippedBitAnywhereAfterTheVersion_IsBindingMismatch(AeadBackendKind backend)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[] cell = EncryptBoundCell(aead, Binding(), new byte[40]);
        byte[] output = new byte[cell.Length];

        for (int i = 1; i < cell.Length; i++)
        {
            cell[i] ^= 0x10;
            Assert.Equal(AeadCellCheck.BindingMismatch, aead.TryDecryptBound(Binding(), cell, output, out _));
            cell[i] ^= 0x10;
        }

        Assert.Equal(AeadCellCheck.Valid, aead.TryDecryptBound(Binding(), cell, output, out _));
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void TryDecryptBound_FormatThreeCell_IsNotBound(AeadBackendKind backend)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[] unbound = aead.Encrypt("078-05-1120"u8.ToArray());

        Assert.Equal(AeadCellCheck.NotBound, aead.TryDecryptBound(Binding(), unbound, new byte[unbound.Length], out _));
        var exception = Assert.Throws<EncryptionException>(() => aead.DecryptBound(Binding(), unbound, new byte[unbound.Length]));
        Assert.Equal(EncryptionErrorKind.CellBindingMismatch, exception.Kind);
        Assert.Equal(AeadErrors.NotBoundMessage, exception.Message);
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void Decrypt_BoundCellReadAsFormatThree_IsInvalidCipherText(AeadBackendKind backend)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[] bound = EncryptBoundCell(aead, Binding(), "078-05-1120"u8);
        bound[0] = AeadCellLayout.Version;

        // Even with its version byte rewritten, a bound tag is no format-3 tag (other key, other input).
        Assert.False(aead.TryDecrypt(bound, new byte[bound.Length], out _));
        bound[0] = AeadCellLayout.BoundVersion;
        var exception = Assert.Throws<EncryptionException>(() => aead.Decrypt(bound, new byte[bound.Length]));
        Assert.Equal(EncryptionErrorKind.InvalidCipherText, exception.Kind);
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void TryDecryptBound_TruncatedOrUnknownVersion_IsMalformed(AeadBackendKind backend)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[] cell = EncryptBoundCell(aead, Binding(), new byte[20]);
        byte[] output = new byte[cell.Length];

        Assert.Equal(AeadCellCheck.Malformed, aead.TryDecryptBound(Binding(), cell[..^1], output, out _));
        Assert.Equal(AeadCellCheck.Malformed, aead.TryDecryptBound(Binding(), cell[..64], output, out _));
        cell[0] = 0x03;
        Assert.Equal(AeadCellCheck.Malformed, aead.TryDecryptBound(Binding(), cell, output, out _));
        Assert.Equal(EncryptionErrorKind.InvalidCipherText, Assert.Throws<EncryptionException>(() => aead.DecryptBound(Binding(), cell, output)).Kind);
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void EncryptBound_AssociatedDataWithoutTheBoundVersion_Throws(AeadBackendKind backend)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[] cell = new byte[AeadAes256CbcHmacSha256.GetCipherTextLength(1)];
        byte[] associatedData = Binding();
        associatedData[0] = 0x01;

        Assert.Throws<ArgumentException>(() => aead.EncryptBound(associatedData, [1], cell));
        Assert.Throws<ArgumentException>(() => aead.EncryptBound([], [1], cell));
        Assert.Throws<ArgumentException>(() => aead.TryDecryptBound(associatedData, cell, cell.AsSpan().ToArray(), out _));
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void EncryptBound_SameInputsTwice_DiffersByIvAndLengthEqualsFormatThree(AeadBackendKind backend)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());

        byte[] first = EncryptBoundCell(aead, Binding(), "x"u8);
        byte[] second = EncryptBoundCell(aead, Binding(), "x"u8);

        Assert.NotEqual(first[33..49], second[33..49]);
        Assert.Equal(aead.Encrypt("x"u8.ToArray()).Length, first.Length);
        Assert.Equal(AeadCellLayout.BoundVersion, first[0]);
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void EncryptBound_AnySizesOfValueAndSelector_RoundTripsOnlyUnderItsOwnSelector(AeadBackendKind backend)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        Prop.ForAll(
            Gen.Choose(0, 600).ToArbitrary(),
            Gen.Choose(1, 400).ToArbitrary(),
            (plainTextLength, selectorLength) =>
            {
                byte[] plainText = RandomNumberGenerator.GetBytes(plainTextLength);
                byte[] selector = Encoding.ASCII.GetBytes(new string('s', selectorLength));
                byte[] associatedData = AssociatedData(selector, marker: 2);
                byte[] other = AssociatedData([.. selector, (byte)'x'], marker: 2);
                byte[] cell = new byte[AeadAes256CbcHmacSha256.GetCipherTextLength(plainTextLength)];
                aead.EncryptBound(associatedData, plainText, cell);
                byte[] output = new byte[cell.Length];

                bool home = aead.TryDecryptBound(associatedData, cell, output, out int written) == AeadCellCheck.Valid
                    && output.AsSpan(0, written).SequenceEqual(plainText);
                bool elsewhere = aead.TryDecryptBound(other, cell, output, out _) == AeadCellCheck.BindingMismatch;
                return home && elsewhere;
            }).QuickCheckThrowOnFailure();
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void EncryptBoundAndDecryptBound_AfterWarmUp_AllocateNothing(AeadBackendKind backend)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[] small = RandomNumberGenerator.GetBytes(20);
        byte[] large = RandomNumberGenerator.GetBytes(5000);
        byte[] longSelector = AssociatedData(new byte[300], marker: 7);
        byte[] cell = new byte[AeadAes256CbcHmacSha256.GetCipherTextLength(large.Length)];
        byte[] output = new byte[cell.Length];
        byte[] associatedData = Binding();
        Run(20);

        long before = GC.GetAllocatedBytesForCurrentThread();
        Run(300);

        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);

        void Run(int iterations)
        {
            for (int i = 0; i < iterations; i++)
            {
                int n = aead.EncryptBound(associatedData, small, cell);
                aead.TryDecryptBound(associatedData, cell.AsSpan(0, n), output, out _);
                n = aead.EncryptBound(longSelector, large, cell);
                aead.TryDecryptBound(longSelector, cell.AsSpan(0, n), output, out _);
                aead.TryDecryptBound(associatedData, cell.AsSpan(0, n), output, out _);
            }
        }
    }

    [Fact]
    public void EncryptBound_OnlyBuildsTheBoundMacKeyBesidesTheEncryptionKey()
    {
        TestKeySource keys = TestKeySource.Random();
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(AeadBackendKind.Managed, keys);

        byte[] cell = EncryptBoundCell(aead, Binding(), "x"u8);
        aead.DecryptBound(Binding(), cell, new byte[cell.Length]);

        Assert.True(keys.WasRequested(AeadSubKey.BoundMac));
        Assert.False(keys.WasRequested(AeadSubKey.Mac));
        Assert.False(keys.WasRequested(AeadSubKey.Iv));
    }

    private static byte[] EncryptBoundCell(AeadAes256CbcHmacSha256 aead, byte[] associatedData, ReadOnlySpan<byte> plainText)
    {
        byte[] cell = new byte[AeadAes256CbcHmacSha256.GetCipherTextLength(plainText.Length)];
        aead.EncryptBound(associatedData, plainText, cell);
        return cell;
    }

    private static byte[] AssociatedData(byte[] selector, byte marker)
    {
        byte[] digest = SHA256.HashData("a document"u8);
        byte[] associatedData = new byte[BoundCellAssociatedData.GetLength(selector.Length)];
        BoundCellAssociatedData.Write(digest, marker, selector, associatedData);
        return associatedData;
    }

    // A for Alice's /ssn in shop/customers, with one field changed when asked.
    private static byte[] Binding(string? change = null)
    {
        var builder = BindingDigestBuilder.Create(
            stackalloc byte[BindingDigestBuilder.RecommendedScratchSize],
            change == "format" ? 102u : 101u,
            change == "algorithm" ? "AEAes256CbcHmacSha256Randomized" : "MdeAeadAes256CbcHmac256Randomized",
            change == "dataEncryptionKeyId" ? "dek-2" : "dek-1",
            change == "scope" ? "shop/customers-copy" : "shop/customers",
            change == "id" ? "bob"u8 : "alice"u8,
            partitionKeyComponents: 2);
        switch (change)
        {
            case "partitionKey": builder.AddString("bob"u8); break;
            case "partitionKeyType": builder.AddNull(); break;
            default: builder.AddString("alice"u8); break;
        }

        builder.AddNumber(1);
        byte[] digest = new byte[32];
        builder.Finish(digest);
        byte[] selector = change == "selector" ? "/taxId"u8.ToArray() : "/ssn"u8.ToArray();
        byte[] associatedData = new byte[BoundCellAssociatedData.GetLength(selector.Length)];
        BoundCellAssociatedData.Write(digest, change == "marker" ? (byte)4 : (byte)2, selector, associatedData);
        return associatedData;
    }
}

using System.Security.Cryptography;
using Encryption.Custom.Crypto;
using Encryption.Custom.Crypto.Chains;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Crypto.Chains;

/// <summary>
/// <see cref="AeadAes256CbcHmacSha256.EncryptBatch"/> writes, for every value, the cell the per-value API writes: the
/// same bytes for deterministic values, and for random ones the reference cell for the IV it drew. Generated batches of
/// 1 to 9 values (and one of 70, past a stack group), both backends.
/// </summary>
public sealed class AeadEncryptBatchTests
{
    private static readonly Config s_config = Config.QuickThrowOnFailure.WithMaxTest(200);

    public static TheoryData<AeadBackendKind> Backends => AeadBackends.All;

    private static Arbitrary<(ChainBatchCase Batch, bool[] Deterministic)> Cases =>
        (from batch in ChainBatchCase.Arbitrary.Generator
         from deterministic in Gen.ArrayOf(Gen.Elements(false, true), batch.PlainTexts.Length)
         select (batch, deterministic)).ToArbitrary();

    [Theory]
    [MemberData(nameof(Backends))]
    public void EncryptBatch_GeneratedBatches_EachCellIsThePerValueCell(AeadBackendKind backend)
    {
        AeadBackend implementation = AeadBackends.Get(backend);
        Prop.ForAll(Cases, c =>
        {
            using AeadAes256CbcHmacSha256 aead = new(TestKeySource.FromRootKey(c.Batch.Key), implementation);
            (byte[] output, AeadBatchValue[] values) = EncryptBatch(aead, c.Batch.PlainTexts, c.Deterministic, c.Batch.Gap);
            for (int i = 0; i < values.Length; i++)
            {
                byte[] plainText = c.Batch.PlainTexts[i];
                ReadOnlySpan<byte> cell = output.AsSpan(values[i].CellOffset, AeadAes256CbcHmacSha256.GetCipherTextLength(plainText.Length));
                byte[] expected = c.Deterministic[i]
                    ? aead.EncryptDeterministic(AeadBackends.TestIvContext, plainText)
                    : ReferenceAead.Encrypt(c.Batch.Key, plainText, cell.Slice(AeadCellLayout.IvOffset, AeadCellLayout.IvSize).ToArray());
                if (!cell.SequenceEqual(expected))
                {
                    return false;
                }
            }

            return true;
        }).Check(s_config);
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void EncryptBatch_MoreValuesThanOneGroup_EveryCellDecrypts(AeadBackendKind backend)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[][] plainTexts = [.. Enumerable.Range(0, 70).Select(i => RandomNumberGenerator.GetBytes(i * 7 % 300))];

        (byte[] output, AeadBatchValue[] values) = EncryptBatch(aead, plainTexts, new bool[70], gap: 1);

        for (int i = 0; i < values.Length; i++)
        {
            byte[] cell = output.AsSpan(values[i].CellOffset, AeadAes256CbcHmacSha256.GetCipherTextLength(plainTexts[i].Length)).ToArray();
            Assert.Equal(plainTexts[i], aead.Decrypt(cell));
        }
    }

    [Fact]
    public void EncryptBatch_CellOutsideTheOutput_ThrowsAndWritesNothing()
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(AeadBackendKind.Managed, TestKeySource.Random());
        byte[] output = new byte[2 * 65];
        Array.Fill(output, ChainBatchCase.Untouched);

        Assert.Throws<ArgumentOutOfRangeException>(() => aead.EncryptBatch(new byte[32], default, output, [new AeadBatchValue(0, 16, 0), new AeadBatchValue(16, 16, 66)]));

        Assert.All(output, b => Assert.Equal(ChainBatchCase.Untouched, b));
    }

    [Fact]
    public void EncryptBatch_IvContextOutsideItsBuffer_Throws()
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(AeadBackendKind.Managed, TestKeySource.Random());

        Assert.Throws<ArgumentOutOfRangeException>(() => aead.EncryptBatch(new byte[16], new byte[4], new byte[65], [new AeadBatchValue(0, 0, 0, Deterministic: true, 2, 3)]));
    }

    [Fact]
    public void EncryptBatch_Disposed_ThrowsObjectDisposed()
    {
        AeadAes256CbcHmacSha256 aead = AeadBackends.Create(AeadBackendKind.Managed, TestKeySource.Random());
        aead.Dispose();

        Assert.Throws<ObjectDisposedException>(() => aead.EncryptBatch(new byte[4], default, new byte[65], [new AeadBatchValue(0, 4, 0)]));
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void EncryptBatch_AfterWarmUp_AllocatesNothing(AeadBackendKind backend)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        byte[][] plainTexts = [.. new[] { 0, 8, 15, 16, 400, 4096, 17, 8, 8 }.Select(RandomNumberGenerator.GetBytes)];
        bool[] deterministic = [true, false, true, false, true, false, true, false, false];
        (byte[] output, AeadBatchValue[] values) = EncryptBatch(aead, plainTexts, deterministic, gap: 0);
        byte[] joined = [.. plainTexts.SelectMany(p => p)];

        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 200; i++)
        {
            aead.EncryptBatch(joined, AeadBackends.TestIvContext, output, values);
        }

        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
    }

    // The plaintexts one after another and the cells one after another (gap bytes between), IV context TestIvContext.
    private static (byte[] Output, AeadBatchValue[] Values) EncryptBatch(AeadAes256CbcHmacSha256 aead, byte[][] plainTexts, bool[] deterministic, int gap)
    {
        var values = new AeadBatchValue[plainTexts.Length];
        int plainOffset = 0;
        int cellOffset = 0;
        for (int i = 0; i < plainTexts.Length; i++)
        {
            values[i] = new AeadBatchValue(plainOffset, plainTexts[i].Length, cellOffset, deterministic[i], 0, AeadBackends.TestIvContext.Length);
            plainOffset += plainTexts[i].Length + gap;
            cellOffset += AeadAes256CbcHmacSha256.GetCipherTextLength(plainTexts[i].Length) + gap;
        }

        byte[] joined = new byte[plainOffset];
        for (int i = 0; i < plainTexts.Length; i++)
        {
            plainTexts[i].CopyTo(joined, values[i].PlainTextOffset);
        }

        byte[] output = new byte[cellOffset];
        aead.EncryptBatch(joined, AeadBackends.TestIvContext, output, values);
        return (output, values);
    }
}

using Encryption.Custom.Crypto.Chains;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Crypto.Chains;

/// <summary>
/// A generated batch: a key, 1 to 9 values of 0 to a few thousand bytes with their IVs, and a layout that puts the
/// plaintexts and the cells apart by a gap and, for some batches, the cells in reverse order, so offsets matter.
/// </summary>
internal sealed record ChainBatchCase(byte[] Key, byte[][] PlainTexts, byte[][] Ivs, int Gap, bool ReverseCells)
{
    /// <summary>What the output holds wherever no chain writes.</summary>
    public const byte Untouched = 0xA5;

    private static Gen<byte[]> Bytes(int length) => Gen.ArrayOf(Gen.Choose(0, 255).Select(b => (byte)b), length);

    // Mostly short values (one to a few blocks, every remainder mod 16), sometimes a few KB.
    private static Gen<byte[]> PlainText => Gen.Frequency((4, Gen.Choose(0, 300)), (1, Gen.Choose(300, 5000))).SelectMany(Bytes);

    public static Arbitrary<ChainBatchCase> Arbitrary =>
        (from key in Bytes(32)
         from count in Gen.Choose(1, 9)
         from plainTexts in Gen.ArrayOf(PlainText, count)
         from ivs in Gen.ArrayOf(Bytes(16), count)
         from gap in Gen.Elements(0, 3, 16)
         from reverse in Gen.Elements(false, true)
         select new ChainBatchCase(key, plainTexts, ivs, gap, reverse)).ToArbitrary();

    /// <summary>The plaintexts one after another (gaps between), the output with each IV in place, and the chains.</summary>
    public (byte[] PlainTexts, byte[] Output, CbcChain[] Chains) Layout()
    {
        int count = PlainTexts.Length;
        byte[] plainTexts = new byte[PlainTexts.Sum(p => p.Length + Gap)];
        byte[] output = new byte[PlainTexts.Sum(p => 16 + CbcChainBatch.PaddedLength(p.Length) + Gap)];
        Array.Fill(output, Untouched);
        var chains = new CbcChain[count];
        int plainOffset = 0;
        int outputOffset = 0;
        for (int n = 0; n < count; n++)
        {
            int i = ReverseCells ? count - 1 - n : n;
            Ivs[i].CopyTo(output, outputOffset);
            chains[i] = chains[i] with { IvOffset = outputOffset, CipherTextOffset = outputOffset + 16 };
            outputOffset += 16 + CbcChainBatch.PaddedLength(PlainTexts[i].Length) + Gap;
        }

        for (int i = 0; i < count; i++)
        {
            PlainTexts[i].CopyTo(plainTexts, plainOffset);
            chains[i] = chains[i] with { PlainTextOffset = plainOffset, PlainTextLength = PlainTexts[i].Length };
            plainOffset += PlainTexts[i].Length + Gap;
        }

        return (plainTexts, output, chains);
    }

    /// <summary>Value <paramref name="i"/> PKCS#7-padded by the definition (the product pads by hand; this does not share its code).</summary>
    public byte[] Padded(int i)
    {
        byte[] plainText = PlainTexts[i];
        int padding = 16 - (plainText.Length % 16);
        return [.. plainText, .. Enumerable.Repeat((byte)padding, padding)];
    }

    public override string ToString() =>
        $"{PlainTexts.Length} values ({string.Join(", ", PlainTexts.Select(p => p.Length))} bytes), gap {Gap}, reversed cells {ReverseCells}";
}

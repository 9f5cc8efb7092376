using System.Security.Cryptography;
using Encryption.Custom.Crypto;
using Encryption.Custom.Crypto.Chains;
using Encryption.Custom.Native.Memory;
using Encryption.Custom.Native.OpenSsl;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Crypto.Chains;

/// <summary>
/// The interleaved encryptor against the per-value path the product uses (OpenSSL's CBC, padded by the definition) and
/// against the BCL's AES-CBC with PKCS#7, byte for byte, on generated keys, IVs, lengths and batches of 1 to 9 values.
/// </summary>
public sealed class InterleavedAesCbcEncryptorTests : IDisposable
{
    private static readonly Config s_config = Config.QuickThrowOnFailure.WithMaxTest(300);
    private readonly ProtectedMemoryPool _pool = new();

    public void Dispose() => _pool.Dispose();

    [Fact]
    public void Encrypt_GeneratedBatches_EqualsOpenSslValueByValue()
    {
        SkipUnlessSupported();
        Assert.SkipUnless(OpenSslAeadBackend.IsSupported, "libcrypto 3 is not available");
        Prop.ForAll(ChainBatchCase.Arbitrary, c =>
        {
            (byte[] plainTexts, byte[] output, CbcChain[] chains) = c.Layout();
            using (InterleavedAesCbcEncryptor encryptor = InterleavedAesCbcEncryptor.Create(c.Key, _pool))
            {
                encryptor.Encrypt(plainTexts, output, chains);
            }

            using CbcCipher reference = OpenSslAeadBackend.Instance.CreateCbcCipher(c.Key, encrypting: true);
            for (int i = 0; i < chains.Length; i++)
            {
                byte[] padded = c.Padded(i);
                byte[] expected = new byte[padded.Length];
                reference.Reset(c.Ivs[i]);
                reference.Update(padded, expected);
                if (!output.AsSpan(chains[i].CipherTextOffset, expected.Length).SequenceEqual(expected))
                {
                    return false;
                }
            }

            return OnlyCipherTextsWritten(c, output, chains);
        }).Check(s_config);
    }

    [Fact]
    public void Encrypt_GeneratedBatches_EqualsBclCbcWithPkcs7()
    {
        SkipUnlessSupported();
        Prop.ForAll(ChainBatchCase.Arbitrary, c =>
        {
            (byte[] plainTexts, byte[] output, CbcChain[] chains) = c.Layout();
            using (InterleavedAesCbcEncryptor encryptor = InterleavedAesCbcEncryptor.Create(c.Key, _pool))
            {
                encryptor.Encrypt(plainTexts, output, chains);
            }

            using Aes aes = Aes.Create();
            aes.Key = c.Key;
            return chains.Select((chain, i) => (chain, expected: aes.EncryptCbc(c.PlainTexts[i], c.Ivs[i], PaddingMode.PKCS7)))
                .All(x => output.AsSpan(x.chain.CipherTextOffset, x.expected.Length).SequenceEqual(x.expected));
        }).Check(s_config);
    }

    [Fact]
    public void Encrypt_Sp80038aCbcAes256Vector_FirstFourBlocksMatch()
    {
        // NIST SP 800-38A F.2.5 (CBC-AES256.Encrypt); the fifth block is the PKCS#7 padding the product adds.
        SkipUnlessSupported();
        byte[] key = Convert.FromHexString("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4");
        byte[] iv = Convert.FromHexString("000102030405060708090a0b0c0d0e0f");
        byte[] plainText = Convert.FromHexString(
            "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710");
        byte[] expected = Convert.FromHexString(
            "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b");
        byte[] output = [.. iv, .. new byte[80]];
        using InterleavedAesCbcEncryptor encryptor = InterleavedAesCbcEncryptor.Create(key, _pool);

        encryptor.Encrypt(plainText, output, [new CbcChain(0, 64, 0, 16)]);

        Assert.Equal(expected, output[16..80]);
    }

    [Fact]
    public void Encrypt_TwoBatches_SameKeySameResult()
    {
        // The round keys are unmasked per batch and the stack copy wiped: a second batch must still see the key.
        SkipUnlessSupported();
        byte[] key = RandomNumberGenerator.GetBytes(32);
        byte[] plainText = RandomNumberGenerator.GetBytes(100);
        byte[] first = [.. new byte[16], .. new byte[112]];
        byte[] second = [.. new byte[16], .. new byte[112]];
        using InterleavedAesCbcEncryptor encryptor = InterleavedAesCbcEncryptor.Create(key, _pool);

        encryptor.Encrypt(plainText, first, [new CbcChain(0, 100, 0, 16)]);
        encryptor.Encrypt(plainText, second, [new CbcChain(0, 100, 0, 16)]);

        Assert.Equal(first, second);
        Assert.Contains(first[16..], b => b != 0);
    }

    [Theory]
    [InlineData(-1, 10, 0, 16)]
    [InlineData(0, -1, 0, 16)]
    [InlineData(0, 65, 0, 16)]
    [InlineData(0, 10, -1, 16)]
    [InlineData(0, 10, 40, 16)]
    [InlineData(0, 10, 0, 33)]
    [InlineData(0, 48, 0, 16)]
    public void Encrypt_ChainOutsideItsBuffers_ThrowsAndWritesNothing(int plainOffset, int plainLength, int ivOffset, int cipherOffset)
    {
        SkipUnlessSupported();
        byte[] plainTexts = new byte[64];
        byte[] output = new byte[48];
        Array.Fill(output, ChainBatchCase.Untouched);
        using InterleavedAesCbcEncryptor encryptor = InterleavedAesCbcEncryptor.Create(RandomNumberGenerator.GetBytes(32), _pool);

        // A valid chain first: the bad one after it must stop the batch before anything is encrypted.
        Assert.Throws<ArgumentOutOfRangeException>(() => encryptor.Encrypt(
            plainTexts, output, [new CbcChain(0, 10, 0, 16), new CbcChain(plainOffset, plainLength, ivOffset, cipherOffset)]));

        Assert.All(output, b => Assert.Equal(ChainBatchCase.Untouched, b));
    }

    [Fact]
    public void Encrypt_IvOverlapsItsCipherText_Throws()
    {
        SkipUnlessSupported();
        using InterleavedAesCbcEncryptor encryptor = InterleavedAesCbcEncryptor.Create(RandomNumberGenerator.GetBytes(32), _pool);

        Assert.Throws<ArgumentException>(() => encryptor.Encrypt(new byte[20], new byte[64], [new CbcChain(0, 20, 8, 0)]));
    }

    [Fact]
    public void Encrypt_PlainTextsOverlapOutput_Throws()
    {
        SkipUnlessSupported();
        byte[] buffer = new byte[128];
        using InterleavedAesCbcEncryptor encryptor = InterleavedAesCbcEncryptor.Create(RandomNumberGenerator.GetBytes(32), _pool);

        Assert.Throws<ArgumentException>(() => encryptor.Encrypt(buffer.AsSpan(0, 64), buffer.AsSpan(32, 64), [new CbcChain(0, 4, 0, 16)]));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(16)]
    [InlineData(31)]
    [InlineData(33)]
    public void Create_KeyNot32Bytes_Throws(int length)
    {
        SkipUnlessSupported();
        Assert.Throws<ArgumentException>(() => InterleavedAesCbcEncryptor.Create(new byte[length], _pool));
        Assert.Equal(0, _pool.SlotsInUse);
    }

    [Fact]
    public void Encrypt_AfterWarmUp_AllocatesNothing()
    {
        SkipUnlessSupported();
        var c = new ChainBatchCase(
            RandomNumberGenerator.GetBytes(32),
            [.. new[] { 0, 8, 15, 16, 400, 4096, 17 }.Select(RandomNumberGenerator.GetBytes)],
            [.. Enumerable.Range(0, 7).Select(_ => RandomNumberGenerator.GetBytes(16))],
            Gap: 0,
            ReverseCells: false);
        (byte[] plainTexts, byte[] output, CbcChain[] chains) = c.Layout();
        using InterleavedAesCbcEncryptor encryptor = InterleavedAesCbcEncryptor.Create(c.Key, _pool);
        encryptor.Encrypt(plainTexts, output, chains);

        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 200; i++)
        {
            encryptor.Encrypt(plainTexts, output, chains);
        }

        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
    }

    internal static void SkipUnlessSupported() =>
        Assert.SkipUnless(InterleavedAesCbcEncryptor.IsSupported, "AES-NI is not available: the product encrypts value by value");

    // The IVs are as they were and every byte outside the chains' IVs and ciphertexts is untouched.
    private static bool OnlyCipherTextsWritten(ChainBatchCase c, byte[] output, CbcChain[] chains)
    {
        bool[] owned = new bool[output.Length];
        for (int i = 0; i < chains.Length; i++)
        {
            if (!output.AsSpan(chains[i].IvOffset, 16).SequenceEqual(c.Ivs[i]))
            {
                return false;
            }

            owned.AsSpan(chains[i].IvOffset, 16 + CbcChainBatch.PaddedLength(chains[i].PlainTextLength)).Fill(true);
        }

        return Enumerable.Range(0, output.Length).All(j => owned[j] || output[j] == ChainBatchCase.Untouched);
    }
}

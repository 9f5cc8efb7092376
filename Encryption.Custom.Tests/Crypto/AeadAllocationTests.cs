using System.Security.Cryptography;
using Encryption.Custom.Crypto;

namespace Encryption.Custom.Tests.Crypto;

/// <summary>The span API allocates nothing per operation once warm (counted, not timed).</summary>
public class AeadAllocationTests
{
    public static TheoryData<AeadBackendKind, bool> BackendsAndIvModes => AeadBackends.AllWithIvModes;

    [Theory]
    [MemberData(nameof(BackendsAndIvModes))]
    public void EncryptAndDecrypt_AfterWarmUp_AllocateNothing(AeadBackendKind backend, bool deterministic)
    {
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.Random());
        int[] lengths = [0, 16, 100, 300, 4096, 70_000];
        byte[][] plainTexts = lengths.Select(RandomNumberGenerator.GetBytes).ToArray();
        byte[][] cells = lengths.Select(n => new byte[AeadAes256CbcHmacSha256.GetCipherTextLength(n)]).ToArray();
        byte[] output = new byte[70_000 + 16];
        RunAll(aead, plainTexts, cells, output, deterministic, iterations: 20);

        long before = GC.GetAllocatedBytesForCurrentThread();
        RunAll(aead, plainTexts, cells, output, deterministic, iterations: 500);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(0, allocated);
        Assert.True(output.AsSpan(0, 70_000).SequenceEqual(plainTexts[^1]));
    }

    private static void RunAll(AeadAes256CbcHmacSha256 aead, byte[][] plainTexts, byte[][] cells, byte[] output, bool deterministic, int iterations)
    {
        for (int i = 0; i < iterations; i++)
        {
            for (int j = 0; j < plainTexts.Length; j++)
            {
                int cellLength = AeadBackends.Encrypt(aead, deterministic, plainTexts[j], cells[j]);
                aead.Decrypt(cells[j].AsSpan(0, cellLength), output);
                aead.TryDecrypt(cells[j].AsSpan(0, cellLength), output, out _);
            }
        }
    }
}

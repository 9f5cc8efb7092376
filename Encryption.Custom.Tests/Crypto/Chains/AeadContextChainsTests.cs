using Encryption.Custom.Crypto;
using Encryption.Custom.Crypto.Chains;
using Encryption.Custom.Native.Memory;
using Encryption.Custom.Tests.Native.Memory;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Crypto.Chains;

/// <summary>
/// <see cref="AeadContext.EncryptCbcChains"/> gives the same bytes on both of its paths (interleaved AES-NI, and value
/// by value through each backend's cipher, as where AES-NI is missing), and its round keys live and die with the context.
/// </summary>
public sealed class AeadContextChainsTests : IDisposable
{
    private static readonly Config s_config = Config.QuickThrowOnFailure.WithMaxTest(200);
    private readonly ProtectedMemoryPool _pool = new();

    public static TheoryData<AeadBackendKind> Backends => AeadBackends.All;

    public void Dispose() => _pool.Dispose();

    [Theory]
    [MemberData(nameof(Backends))]
    public void EncryptCbcChains_InterleavedAndValueByValue_SameBytes(AeadBackendKind backend)
    {
        InterleavedAesCbcEncryptorTests.SkipUnlessSupported();
        AeadBackend implementation = AeadBackends.Get(backend);
        Prop.ForAll(ChainBatchCase.Arbitrary, c =>
        {
            TestKeySource keys = TestKeySource.FromRootKey(c.Key);
            (byte[] plainTexts, byte[] interleaved, CbcChain[] chains) = c.Layout();
            byte[] valueByValue = (byte[])interleaved.Clone();
            using (var context = new AeadContext(implementation, keys, _pool, interleavedChains: true))
            {
                context.EncryptCbcChains(plainTexts, interleaved, chains);
            }

            using (var context = new AeadContext(implementation, keys, _pool, interleavedChains: false))
            {
                context.EncryptCbcChains(plainTexts, valueByValue, chains);
            }

            return interleaved.AsSpan().SequenceEqual(valueByValue);
        }).Check(s_config);
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void EncryptCbcChains_ValueByValue_EqualsTheCellsTheAeadWrites(AeadBackendKind backend)
    {
        // The fallback against the product's own per-value encryption: a cell's ciphertext for the IV it carries.
        AeadBackend implementation = AeadBackends.Get(backend);
        Prop.ForAll(ChainBatchCase.Arbitrary, c =>
        {
            TestKeySource keys = TestKeySource.FromRootKey(c.Key);
            using AeadAes256CbcHmacSha256 aead = new(keys, implementation);
            byte[][] cells = [.. c.PlainTexts.Select(p => aead.Encrypt(p))];
            var withCellIvs = c with { Ivs = [.. cells.Select(cell => cell[AeadCellLayout.IvOffset..AeadCellLayout.CipherTextOffset])] };
            (byte[] plainTexts, byte[] output, CbcChain[] chains) = withCellIvs.Layout();
            using (var context = new AeadContext(implementation, keys, _pool, interleavedChains: false))
            {
                context.EncryptCbcChains(plainTexts, output, chains);
            }

            return chains.Select((chain, i) => (chain, cell: cells[i]))
                .All(x => output.AsSpan(x.chain.CipherTextOffset, x.cell.Length - AeadCellLayout.CipherTextOffset).SequenceEqual(x.cell.AsSpan(AeadCellLayout.CipherTextOffset)));
        }).Check(s_config);
    }

    [Fact]
    public void EncryptCbcChains_RoundKeys_InTheContextsSlotUntilItIsDisposed()
    {
        InterleavedAesCbcEncryptorTests.SkipUnlessSupported();
        (ProtectedMemoryPool pool, RecordingPageAllocator memory) = RecordingPageAllocator.Pool();
        using (pool)
        {
            var c = new ChainBatchCase(new byte[32], [new byte[40]], [new byte[16]], Gap: 0, ReverseCells: false);
            (byte[] plainTexts, byte[] output, CbcChain[] chains) = c.Layout();
            var context = new AeadContext(AeadBackends.Get(AeadBackendKind.Managed), TestKeySource.FromRootKey(c.Key), pool, interleavedChains: true);
            Assert.Equal(0, pool.SlotsInUse);

            context.EncryptCbcChains(plainTexts, output, chains);
            context.EncryptCbcChains(plainTexts, output, chains);
            Assert.Equal(1, pool.SlotsInUse);
            Assert.Contains(memory.CopyRegion(1), b => b != 0);

            context.Dispose();

            Assert.Equal(0, pool.SlotsInUse);
            Assert.All(memory.CopyRegion(1), b => Assert.Equal(0, b));
        }
    }

    [Fact]
    public void EncryptCbcChains_KeySourceReleased_ThrowsObjectDisposed()
    {
        InterleavedAesCbcEncryptorTests.SkipUnlessSupported();
        TestKeySource keys = TestKeySource.Random();
        keys.Release();
        using var context = new AeadContext(AeadBackends.Get(AeadBackendKind.Managed), keys, _pool, interleavedChains: true);

        Assert.Throws<ObjectDisposedException>(() => context.EncryptCbcChains(new byte[4], new byte[32], [new CbcChain(0, 4, 0, 16)]));
        Assert.Equal(0, _pool.SlotsInUse);
    }
}

using Encryption.Custom.Crypto;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Crypto;

/// <summary>Ours against the independent BCL one-shot reference, both directions, on generated keys and plaintexts.</summary>
public class AeadReferenceCrossCheckTests
{
    private static readonly Config s_config = Config.QuickThrowOnFailure.WithMaxTest(300);

    public static TheoryData<AeadBackendKind> Backends => AeadBackends.All;

    private static Gen<byte[]> Bytes(int length) => Gen.ArrayOf(Gen.Choose(0, 255).Select(b => (byte)b), length);

    // Mostly short values (where the 256-byte stack paths switch), sometimes a few KB.
    private static Gen<byte[]> PlainTexts =>
        Gen.Frequency((4, Gen.Choose(0, 300)), (1, Gen.Choose(300, 5000))).SelectMany(Bytes);

    private static Arbitrary<CrossCheckCase> Cases =>
        (from root in Bytes(32)
         from otherRoot in Bytes(32)
         from iv in Bytes(16)
         from plainText in PlainTexts
         from legacy in Gen.Elements(false, true)
         select new CrossCheckCase(root, otherRoot, iv, plainText, legacy)).ToArbitrary();

    [Theory]
    [MemberData(nameof(Backends))]
    public void Ours_EqualsReferenceWithTheSameIvByteForByte(AeadBackendKind backend)
    {
        // The IV is ours (random, or derived); everything else in the cell must be what the reference computes for it.
        AeadBackend implementation = AeadBackends.Get(backend);
        Prop.ForAll(Cases, c =>
        {
            using AeadAes256CbcHmacSha256 aead = c.Create(implementation, c.Root);
            byte[] randomized = aead.Encrypt(c.PlainText);
            byte[] deterministic = aead.EncryptDeterministic(AeadBackends.TestIvContext, c.PlainText);
            return randomized.AsSpan().SequenceEqual(ReferenceAead.Encrypt(c.Root, c.PlainText, randomized[33..49], c.Legacy))
                && deterministic.AsSpan().SequenceEqual(ReferenceAead.Encrypt(c.Root, c.PlainText, deterministic[33..49], c.Legacy));
        }).Check(s_config);
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void OursEncrypts_ReferenceDecrypts(AeadBackendKind backend)
    {
        AeadBackend implementation = AeadBackends.Get(backend);
        Prop.ForAll(Cases, c =>
        {
            using AeadAes256CbcHmacSha256 aead = c.Create(implementation, c.Root);
            byte[] randomized = aead.Encrypt(c.PlainText);
            byte[] deterministic = aead.EncryptDeterministic(AeadBackends.TestIvContext, c.PlainText);
            return c.PlainText.AsSpan().SequenceEqual(ReferenceAead.Decrypt(c.Root, randomized, c.Legacy))
                && c.PlainText.AsSpan().SequenceEqual(ReferenceAead.Decrypt(c.Root, deterministic, c.Legacy))
                && deterministic.AsSpan(33, 16).SequenceEqual(ReferenceAead.DeterministicIv(c.Root, AeadBackends.TestIvContext, c.PlainText, c.Legacy));
        }).Check(s_config);
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void ReferenceEncrypts_OursDecrypts(AeadBackendKind backend)
    {
        AeadBackend implementation = AeadBackends.Get(backend);
        Prop.ForAll(Cases, c =>
        {
            using AeadAes256CbcHmacSha256 aead = c.Create(implementation, c.Root);
            byte[] cell = ReferenceAead.Encrypt(c.Root, c.PlainText, c.Iv, c.Legacy);
            return c.PlainText.AsSpan().SequenceEqual(aead.Decrypt(cell));
        }).Check(s_config);
    }

    [Theory]
    [MemberData(nameof(Backends))]
    public void CellUnderOtherKey_BothReject(AeadBackendKind backend)
    {
        AeadBackend implementation = AeadBackends.Get(backend);
        Prop.ForAll(Cases, c =>
        {
            using AeadAes256CbcHmacSha256 writer = c.Create(implementation, c.Root);
            using AeadAes256CbcHmacSha256 reader = c.Create(implementation, c.OtherRoot);
            byte[] ours = writer.Encrypt(c.PlainText);
            byte[] reference = ReferenceAead.Encrypt(c.Root, c.PlainText, c.Iv, c.Legacy);
            byte[] scratch = new byte[ours.Length];
            return c.Root.AsSpan().SequenceEqual(c.OtherRoot)
                || (!reader.TryDecrypt(reference, scratch, out _)
                    && !reader.TryDecrypt(ours, scratch, out _)
                    && ReferenceAead.Decrypt(c.OtherRoot, ours, c.Legacy) is null);
        }).Check(s_config);
    }

    /// <summary>One generated case; prints lengths only, so failures stay readable.</summary>
    public sealed record CrossCheckCase(byte[] Root, byte[] OtherRoot, byte[] Iv, byte[] PlainText, bool Legacy)
    {
        internal AeadAes256CbcHmacSha256 Create(AeadBackend backend, byte[] root) =>
            new(TestKeySource.FromRootKey(root, Legacy ? AeadKeyLabels.Legacy : AeadKeyLabels.Current), backend);

        public override string ToString() => $"plaintext {PlainText.Length} bytes, legacy {Legacy}";
    }
}

using System.Text;
using Encryption.Custom.Crypto.Binding;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Crypto.Binding;

/// <summary>The document digest D: one encoding per input, refusals for what has none (docs/wire-format.md "Bound cells").</summary>
public sealed class BindingDigestBuilderTests
{
    [Fact]
    public void Digest_DistinctDocuments_NeverCollide()
    {
        // Length prefixes make the encoding injective: shifting bytes between neighbouring fields changes D.
        Prop.ForAll(
            Gen.Elements("", "a", "ab", "a/b", "b").Four().ToArbitrary(),
            Gen.Elements("", "a", "ab", "a/b", "b").Four().ToArbitrary(),
            (left, right) =>
            {
                byte[] first = Digest(left.Item1, left.Item2, left.Item3, left.Item4);
                byte[] second = Digest(right.Item1, right.Item2, right.Item3, right.Item4);
                return first.AsSpan().SequenceEqual(second) == (left == right);
            }).QuickCheckThrowOnFailure();
    }

    [Fact]
    public void AddNumber_NegativeZero_IsZero()
    {
        Assert.Equal(NumberDigest(0.0), NumberDigest(-0.0));
        Assert.NotEqual(NumberDigest(0.0), NumberDigest(double.Epsilon));
    }

    [Fact]
    public void PartitionKeyComponents_EachKindAndValue_GiveDistinctDigests()
    {
        byte[][] digests =
        [
            Component((ref BindingDigestBuilder b) => b.AddUndefined()),
            Component((ref BindingDigestBuilder b) => b.AddNull()),
            Component((ref BindingDigestBuilder b) => b.AddBoolean(false)),
            Component((ref BindingDigestBuilder b) => b.AddBoolean(true)),
            Component((ref BindingDigestBuilder b) => b.AddNumber(0)),
            Component((ref BindingDigestBuilder b) => b.AddNumber(1)),
            Component((ref BindingDigestBuilder b) => b.AddString(""u8)),
            Component((ref BindingDigestBuilder b) => b.AddString("1"u8)),
            Component((ref BindingDigestBuilder b) => b.AddString("true"u8)),
        ];

        Assert.Equal(digests.Length, digests.Select(Convert.ToHexString).Distinct().Count());
    }

    [Fact]
    public void Create_InputLargerThanTheScratch_GivesTheSameDigestAsALargeScratch()
    {
        byte[] id = Encoding.UTF8.GetBytes(new string('i', 1000));
        byte[] pk = Encoding.UTF8.GetBytes(new string('p', 3000));

        byte[] small = Build(new byte[16], id, pk);
        byte[] large = Build(new byte[8192], id, pk);

        Assert.Equal(large, small);

        static byte[] Build(byte[] scratch, byte[] id, byte[] pk)
        {
            var builder = BindingDigestBuilder.Create(scratch, 101, "alg", "dek", "db/c", id, 1);
            builder.AddString(pk);
            byte[] digest = new byte[32];
            builder.Finish(digest);
            return digest;
        }
    }

    [Fact]
    public void Create_InvalidText_Throws()
    {
        Assert.Throws<ArgumentException>(() => BindingDigestBuilder.Create(new byte[64], 101, "alg", "dek\ud800", "db/c", "id"u8, 0));
        Assert.Throws<ArgumentException>(() => BindingDigestBuilder.Create(new byte[64], 101, "alg", "dek", "db/c", [0xff], 0));
        Assert.Throws<ArgumentException>(() => BindingDigestBuilder.Create(new byte[64], 101, new string('a', 70_000), "dek", "db/c", "id"u8, 0));
        Assert.Throws<ArgumentOutOfRangeException>(() => BindingDigestBuilder.Create(new byte[64], 101, "alg", "dek", "db/c", "id"u8, 4));
        Assert.Throws<ArgumentOutOfRangeException>(() => BindingDigestBuilder.Create(new byte[64], 101, "alg", "dek", "db/c", "id"u8, -1));
    }

    [Fact]
    public void Components_WrongCountOrInvalidValue_Throws()
    {
        Assert.Throws<InvalidOperationException>(() =>
        {
            var builder = BindingDigestBuilder.Create(new byte[64], 101, "alg", "dek", "db/c", "id"u8, 1);
            builder.Finish(new byte[32]);
        });
        Assert.Throws<InvalidOperationException>(() =>
        {
            var builder = BindingDigestBuilder.Create(new byte[64], 101, "alg", "dek", "db/c", "id"u8, 0);
            builder.AddNull();
        });
        Assert.Throws<ArgumentOutOfRangeException>(() =>
        {
            var builder = BindingDigestBuilder.Create(new byte[64], 101, "alg", "dek", "db/c", "id"u8, 1);
            builder.AddNumber(double.NaN);
        });
        Assert.Throws<ArgumentException>(() =>
        {
            var builder = BindingDigestBuilder.Create(new byte[64], 101, "alg", "dek", "db/c", "id"u8, 1);
            builder.AddString([0xc3]);
        });
    }

    [Fact]
    public void AssociatedData_EmptySelectorOrShortDigest_Throws()
    {
        Assert.Throws<ArgumentException>(() => BoundCellAssociatedData.Write(new byte[32], 2, [], new byte[100]));
        Assert.Throws<ArgumentException>(() => BoundCellAssociatedData.Write(new byte[31], 2, "/a"u8, new byte[100]));
        Assert.Throws<ArgumentException>(() => BoundCellAssociatedData.Write(new byte[32], 2, "/a"u8, new byte[37]));
    }

    private static byte[] Digest(string algorithm, string keyId, string scope, string id)
    {
        var builder = BindingDigestBuilder.Create(new byte[64], 101, algorithm, keyId, scope, Encoding.UTF8.GetBytes(id), 0);
        byte[] digest = new byte[32];
        builder.Finish(digest);
        return digest;
    }

    private static byte[] NumberDigest(double value) => Component((ref BindingDigestBuilder b) => b.AddNumber(value));

    private delegate void ComponentWriter(ref BindingDigestBuilder builder);

    private static byte[] Component(ComponentWriter add)
    {
        var builder = BindingDigestBuilder.Create(new byte[64], 101, "alg", "dek", "db/c", "id"u8, 1);
        add(ref builder);
        byte[] digest = new byte[32];
        builder.Finish(digest);
        return digest;
    }
}

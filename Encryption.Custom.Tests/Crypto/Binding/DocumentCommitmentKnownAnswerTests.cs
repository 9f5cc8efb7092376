using System.Text.Json;
using Encryption.Custom.Crypto;
using Encryption.Custom.Crypto.Binding;

namespace Encryption.Custom.Tests.Crypto.Binding;

/// <summary>
/// The document commitment (docs/wire-format.md "Document commitment") reproduces the independent script's vectors
/// byte for byte (eng/vectors/bound-cell-vectors.json, "commitments"): the chain after every cell, the MAC input, the
/// commitment and the anchor; and removing, reordering or re-homing a cell changes it.
/// </summary>
public sealed class DocumentCommitmentKnownAnswerTests
{
    public static TheoryData<string> Names
    {
        get
        {
            var names = new TheoryData<string>();
            foreach (JsonElement vector in Commitments)
            {
                names.Add(vector.GetProperty("name").GetString()!);
            }

            return names;
        }
    }

    private static IEnumerable<JsonElement> Commitments => BoundCellVectors.Root.GetProperty("commitments").EnumerateArray();

    private static JsonElement Get(string name) => Commitments.Single(v => v.GetProperty("name").GetString() == name);

    private static byte[] CommitmentKey()
    {
        byte[] key = new byte[32];
        AeadKeyDerivation.DeriveExtendedSubKey(BoundCellVectors.RootKey, AeadSubKey.Commitment, key);
        return key;
    }

    private static byte[] Compute(JsonElement vector, Action<int, string>? onStep = null)
    {
        byte[] digest = BoundCellVectors.Digest(vector.GetProperty("document"));
        var chain = default(CommitmentChain);
        int index = 0;
        foreach (JsonElement cell in vector.GetProperty("cells").EnumerateArray())
        {
            byte[] value = Convert.FromBase64String(cell.GetProperty("valueBase64").GetString()!);
            chain.Append(value[0], value.AsSpan(1));
            onStep?.Invoke(index++, Convert.ToHexStringLower(chain.Value));
        }

        byte[] block = DocumentCommitment.CreateSelectorBlock(vector.GetProperty("listed").EnumerateArray().Select(p => p.GetString()!));
        byte[] commitment = new byte[DocumentCommitment.Size];
        DocumentCommitment.Compute(CommitmentKey(), digest, block, chain, commitment);
        return commitment;
    }

    [Theory]
    [MemberData(nameof(Names))]
    public void Commitment_Vector_MatchesByteForByte(string name)
    {
        JsonElement vector = Get(name);
        JsonElement[] cells = [.. vector.GetProperty("cells").EnumerateArray()];

        byte[] commitment = Compute(vector, (i, chain) => Assert.Equal(cells[i].GetProperty("chainHex").GetString(), chain));

        Assert.Equal(Convert.ToHexStringLower(BoundCellVectors.Digest(vector.GetProperty("document"))), vector.GetProperty("digestHex").GetString());
        Assert.Equal(vector.GetProperty("commitmentHex").GetString(), Convert.ToHexStringLower(commitment));
        Assert.Equal(vector.GetProperty("anchorBase64").GetString(), Convert.ToBase64String([0xEC, 0x01, .. commitment]));
    }

    [Theory]
    [MemberData(nameof(Names))]
    public void Commitment_UnderTheKeysOwnCommitmentKey_MatchesTheVector(string name)
    {
        // The processors never see the commitment key: the AEAD derives it from the root key and computes the MAC.
        JsonElement vector = Get(name);
        var chain = default(CommitmentChain);
        foreach (JsonElement cell in vector.GetProperty("cells").EnumerateArray())
        {
            byte[] value = Convert.FromBase64String(cell.GetProperty("valueBase64").GetString()!);
            chain.Append(value[0], value.AsSpan(1));
        }

        byte[] block = DocumentCommitment.CreateSelectorBlock(vector.GetProperty("listed").EnumerateArray().Select(p => p.GetString()!));
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(AeadBackendKind.Managed, TestKeySource.FromRootKey(BoundCellVectors.RootKey));
        byte[] commitment = new byte[DocumentCommitment.Size];
        DocumentCommitment.Compute(aead, BoundCellVectors.Digest(vector.GetProperty("document")), block, chain, commitment);
        Assert.Equal(vector.GetProperty("commitmentHex").GetString(), Convert.ToHexStringLower(commitment));
    }

    [Fact]
    public void CommitmentInput_OfTheFirstVector_IsTheSpecifiedLayout()
    {
        JsonElement vector = Get("four cells, three selectors");
        byte[] block = DocumentCommitment.CreateSelectorBlock(vector.GetProperty("listed").EnumerateArray().Select(p => p.GetString()!));
        string input = vector.GetProperty("commitmentInputHex").GetString()!;

        // "EC-COMMIT-v1" ‖ D ‖ the sorted selector block ‖ u32be(n) ‖ h_n
        Assert.StartsWith(Convert.ToHexStringLower("EC-COMMIT-v1"u8) + vector.GetProperty("digestHex").GetString() + Convert.ToHexStringLower(block), input, StringComparison.Ordinal);
        Assert.EndsWith("00000004" + vector.GetProperty("cells")[3].GetProperty("chainHex").GetString(), input, StringComparison.Ordinal);
        Assert.Equal(["/address/city", "/cards/[]/number", "/ssn"], vector.GetProperty("sortedListed").EnumerateArray().Select(p => p.GetString()));
    }

    [Fact]
    public void Commitments_DifferWhenACellIsRemovedReorderedOrFromAnotherDocument()
    {
        string[] all = [.. Commitments.Select(v => v.GetProperty("commitmentHex").GetString()!)];

        Assert.Equal(all.Length, all.Distinct(StringComparer.Ordinal).Count());
    }

    [Fact]
    public void SelectorBlock_IsIndependentOfTheListedOrder()
    {
        Assert.Equal(
            DocumentCommitment.CreateSelectorBlock(["/ssn", "/address/city", "/cards/[]/number"]),
            DocumentCommitment.CreateSelectorBlock(["/cards/[]/number", "/ssn", "/address/city"]));
    }
}

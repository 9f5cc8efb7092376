using System.Text;
using System.Text.Json;
using Encryption.Custom.Migration;

namespace Encryption.Custom.Tests.Migration;

/// <summary>
/// A shared verification's range records: the merge of a round's records is the status one scan of the container
/// would give, and each instance judges the documents outside the target state against its own failures (by a hash of
/// id and partition key); documents a record cannot name count as unexplained for every instance.
/// </summary>
public sealed class VerificationRecordTests
{
    private static JsonElement Json(string text) => JsonDocument.Parse(text).RootElement.Clone();

    private static string Part(string outside, long unnamed = 0, bool typesChecked = true) =>
        $$"""{"total":10,"inTarget":8,"unencrypted":1,"plaintext":1,"otherPaths":0,"unreadable":1,"unlistedCipherText":0,"staleQueryTokens":2,"ru":3.5,"typesChecked":{{(typesChecked ? "true" : "false")}},"byKey":{"dek1":9},"byFormat":{"3":9},"unnamed":{{unnamed}},"outside":[{{outside}}]}""";

    [Fact]
    public void TheMergeOfARound_SumsEveryCount()
    {
        (EncryptionMigrationStatus status, long[] unexplained) = VerificationRecord.Merge([Json(Part("")), Json(Part("", typesChecked: false))], _ => false);

        Assert.Equal((20L, 16L, 2L, 2L, 2L, 4L), (status.TotalDocuments, status.DocumentsInTargetState, status.UnencryptedDocuments, status.PlaintextDocuments, status.UnreadableDocuments, status.DocumentsWithStaleQueryTokens));
        Assert.Equal(7.0, status.RequestUnits);
        Assert.False(status.EncryptionTypesChecked); // checked only if every range checked them
        Assert.Equal(18, status.DocumentsByDataEncryptionKeyId["dek1"]);
        Assert.Equal(18, status.DocumentsByFormatVersion[3]);
        Assert.Equal([0L, 0L], unexplained);
    }

    [Fact]
    public void DocumentsOutsideTheTarget_AreUnexplainedUnlessThisInstanceReportedThem_AndUnnamedOnesAlwaysAre()
    {
        string failed = VerificationRecord.Name("d1", "[\"p1\"]");
        string other = VerificationRecord.Name("d2", "[\"p1\"]");
        JsonElement[] parts = [Json(Part($"\"{failed}\",\"{other}\"")), Json(Part($"\"{failed}\"", unnamed: 3))];

        (_, long[] unexplained) = VerificationRecord.Merge(parts, name => name == failed);

        Assert.Equal([1L, 3L], unexplained);
    }

    [Fact]
    public void ARangeWritten_ReadsBackAsARecord()
    {
        (EncryptionMigrationStatus status, _) = VerificationRecord.Merge([Json(Part(""))], _ => false);
        using var body = new MemoryStream();
        using (var writer = new Utf8JsonWriter(body))
        {
            VerificationRecord.Write(writer, status, [], unexplained: 2);
        }

        JsonElement written = Json(Encoding.UTF8.GetString(body.ToArray()));

        Assert.True(VerificationRecord.IsRecord(written));
        (EncryptionMigrationStatus again, long[] unexplained) = VerificationRecord.Merge([written], _ => true);
        Assert.Equal((status.TotalDocuments, status.DocumentsInTargetState, status.RequestUnits), (again.TotalDocuments, again.DocumentsInTargetState, again.RequestUnits));
        Assert.Equal([2L], unexplained); // the two it could not name
        Assert.DoesNotContain("d1", written.GetRawText(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("""{"total":1}""")]
    [InlineData("""{"total":10,"inTarget":8,"unencrypted":1,"plaintext":1,"otherPaths":0,"unreadable":1,"unlistedCipherText":0,"staleQueryTokens":2,"ru":3.5,"typesChecked":true,"byKey":{},"byFormat":{},"unnamed":0,"outside":[7]}""")]
    [InlineData("""{"total":10,"inTarget":-8,"unencrypted":1,"plaintext":1,"otherPaths":0,"unreadable":1,"unlistedCipherText":0,"staleQueryTokens":2,"ru":3.5,"typesChecked":true,"byKey":{},"byFormat":{},"unnamed":0,"outside":[]}""")]
    [InlineData("""{"total":10,"inTarget":8,"unencrypted":1,"plaintext":1,"otherPaths":0,"unreadable":1,"unlistedCipherText":0,"staleQueryTokens":2,"ru":3.5,"byKey":{},"byFormat":{},"unnamed":0,"outside":[]}""")]
    public void AMalformedRecord_IsNotARecord(string json)
    {
        Assert.False(VerificationRecord.IsRecord(Json(json)));
    }
}

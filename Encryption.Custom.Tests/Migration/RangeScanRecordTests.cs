using System.Text;
using System.Text.Json;
using Encryption.Custom.Migration;
using Encryption.Custom.Tests.Keys.TestSupport;
using Microsoft.Extensions.Time.Testing;

namespace Encryption.Custom.Tests.Migration;

/// <summary>
/// A shared scan's records: a range's survey written and read back is the same survey; the merge of ranges' surveys
/// sums every count (the survey of the ranges together); a record that cannot be trusted (unreadable, another
/// fingerprint, round or range) is never merged but scanned again; a round whose last write is too old is replaced.
/// </summary>
public sealed class RangeScanRecordTests
{
    private const string Part1 = """
        {"total":5,"unencrypted":1,"unreadable":1,"ru":2.5,"byKey":{"dek1":3},"byFormat":{"3":3},"withValues":{"/ssn":4},
         "paths":{"/ssn":{"documents":3,"deterministic":2,"randomized":1,"keys":["dek1"]}}}
        """;

    private const string Part2 = """
        {"total":4,"unencrypted":0,"unreadable":0,"ru":1.5,"byKey":{"dek1":1,"dek2":3},"byFormat":{"3":2,"101":2},"withValues":{"/ssn":4},
         "paths":{"/ssn":{"documents":4,"deterministic":0,"randomized":0,"keys":["dek2"]},"/salary":{"documents":3,"deterministic":0,"randomized":3,"keys":["dek2"]}}}
        """;

    private static readonly ContainerEncryptionPolicy s_target = new("dek1", ["/ssn", "/name"]);
    private readonly FakeTimeProvider _time = new(TestClock.Start);

    private static JsonElement Json(string text) => JsonDocument.Parse(text).RootElement.Clone();

    private static string Written(ContainerSurvey survey)
    {
        using var body = new MemoryStream();
        using (var writer = new Utf8JsonWriter(body))
        {
            survey.WriteTo(writer);
        }

        return Encoding.UTF8.GetString(body.ToArray());
    }

    [Fact]
    public void ASurveyWrittenAndReadBack_IsTheSameSurvey()
    {
        ContainerSurvey survey = ContainerSurvey.Merge([Json(Part1)], s_target);

        ContainerSurvey again = ContainerSurvey.Merge([Json(Written(survey))], s_target);

        Assert.Equal(Written(survey), Written(again));
        Assert.Equal((5L, 1L, 1L, 2.5), (again.TotalDocuments, again.UnencryptedDocuments, again.UnreadableDocuments, again.RequestUnits));
        Assert.Equal(new PathUse(3, 2, 1), again.Paths["/ssn"]);
    }

    [Fact]
    public void TheMergeOfRanges_SumsEveryCount_AndUnitesEachPathsKeys()
    {
        ContainerSurvey merged = ContainerSurvey.Merge([Json(Part1), Json(Part2)], s_target);

        Assert.Equal(9, merged.TotalDocuments);
        Assert.Equal(1, merged.UnencryptedDocuments);
        Assert.Equal(1, merged.UnreadableDocuments);
        Assert.Equal(4.0, merged.RequestUnits);
        Assert.Equal(new Dictionary<string, long> { ["dek1"] = 4, ["dek2"] = 3 }, merged.DocumentsByDataEncryptionKeyId);
        Assert.Equal(new Dictionary<int, long> { [3] = 5, [101] = 2 }, merged.DocumentsByFormatVersion);
        Assert.Equal(new PathUse(7, 2, 1), merged.Paths["/ssn"]);
        Assert.Equal(new PathUse(3, 0, 3), merged.Paths["/salary"]);

        // A target path no range found a value in is still listed, with 0 (as a survey of the whole container lists it).
        Assert.Equal(8, merged.DocumentsWithValues["/ssn"]);
        Assert.Equal(0, merged.DocumentsWithValues["/name"]);
        StoredPathUse ssn = merged.StoredAt("/ssn");
        Assert.Equal(8, ssn.WithValues);
        Assert.Equal(7, ssn.Encrypted);
        Assert.Equal(["dek1", "dek2"], ssn.KeyIds.Order(StringComparer.Ordinal));
    }

    [Theory]
    [InlineData("""{"unencrypted":0,"unreadable":0,"ru":1,"byKey":{},"byFormat":{},"withValues":{},"paths":{}}""")] // no total
    [InlineData("""{"total":-1,"unencrypted":0,"unreadable":0,"ru":1,"byKey":{},"byFormat":{},"withValues":{},"paths":{}}""")]
    [InlineData("""{"total":1.5,"unencrypted":0,"unreadable":0,"ru":1,"byKey":{},"byFormat":{},"withValues":{},"paths":{}}""")]
    [InlineData("""{"total":1,"unencrypted":0,"unreadable":0,"ru":1,"byKey":{"dek1":"1"},"byFormat":{},"withValues":{},"paths":{}}""")]
    [InlineData("""{"total":1,"unencrypted":0,"unreadable":0,"ru":1,"byKey":{},"byFormat":{"three":1},"withValues":{},"paths":{}}""")]
    [InlineData("""{"total":1,"unencrypted":0,"unreadable":0,"ru":1,"byKey":{},"byFormat":{},"withValues":{},"paths":{"/a":{"documents":1,"deterministic":0,"randomized":0}}}""")]
    [InlineData("""[1]""")]
    public void AMalformedSurveyRecord_IsRefused(string json)
    {
        Assert.Throws<FormatException>(() => ContainerSurvey.Merge([Json(json)], s_target));
    }

    private RangeScanRecords Records(string fingerprint = "f1") =>
        new(null!, RangeScanRecords.SurveyKind, "job", fingerprint, budget: null, _time) { IsResult = ContainerSurvey.IsRecord };

    private static readonly ScanRound s_round = new(2, ["range-0", "range-1"], "round-etag");

    private string RangeRow(string state = "done", string fingerprint = "f1", int round = 2, string range = "range-1", string survey = Part1, string kind = "encryption-migration-survey-range") =>
        $$"""{"id":"r","kind":"{{kind}}","processor":"job","fingerprint":"{{fingerprint}}","round":{{round}},"index":1,"range":"{{range}}","owner":"b","state":"{{state}}","result":{{survey}},"_etag":"e7","_ts":{{_time.GetUtcNow().ToUnixTimeSeconds()}}}""";

    [Fact]
    public void ARangeRecordOfThisJobFingerprintRoundAndRange_IsTrusted()
    {
        (RangeRecord done, JsonElement? result) = Records().ReadRange(Json(RangeRow()), s_round);
        (RangeRecord claimed, _) = Records().ReadRange(Json(RangeRow(state: "claimed")), s_round);

        Assert.Equal(new RangeRecord(1, "e7", RangeRecordState.Done, "b"), done);
        Assert.NotNull(result);
        Assert.Equal(new RangeRecord(1, "e7", RangeRecordState.Claimed, "b"), claimed);
    }

    [Fact]
    public void ARangeRecordThatCannotBeTrusted_IsScannedAgain()
    {
        RangeScanRecords records = Records();
        string[] rows =
        [
            RangeRow(fingerprint: "f0"), // another target or key set: another survey's
            RangeRow(round: 1), // an earlier round
            RangeRow(range: "range-0"), // another range than the round's at this index (a split recorded elsewhere)
            RangeRow(state: "scanning"),
            RangeRow(survey: """{"total":"x"}"""), // a result that cannot be read
            RangeRow(kind: "encryption-migration-verification-range"), // the verification's, not the survey's
        ];

        foreach (string row in rows)
        {
            (RangeRecord record, JsonElement? result) = records.ReadRange(Json(row), s_round);
            Assert.Equal(RangeRecordState.Untrusted, record.State);
            Assert.Null(result);
        }
    }

    [Fact]
    public void ARoundIsLive_WhileItsLastWriteIsWithinTheReuseWindow()
    {
        RangeScanRecords records = Records();
        long now = _time.GetUtcNow().ToUnixTimeSeconds();
        long old = now - (long)RangeScanRecords.DefaultReuseWindow.TotalSeconds - 1;

        // Opened long ago, but a range claimed, renewed or recorded lately: in progress (a long scan renews its claims).
        Assert.True(records.IsLive(s_round with { Written = old }, newest: now - 5));
        Assert.True(records.IsLive(s_round with { Written = now }, newest: 0));

        // Nothing written for longer than the window: its results describe a container that may have changed since.
        Assert.False(records.IsLive(s_round with { Written = old }, newest: old));
        Assert.False(new RangeScanRecords(null!, RangeScanRecords.VerificationKind, "job", "f1", null, _time) { ReuseWindow = TimeSpan.FromMinutes(1) }.IsLive(s_round with { Written = now - 61 }, newest: now - 61));
    }

    [Fact]
    public void ARoundRecordOfAnotherFingerprintOrWithoutRanges_IsNotJoined()
    {
        RangeScanRecords records = Records();
        const string Good = """{"kind":"encryption-migration-survey","processor":"job","fingerprint":"f1","round":3,"ranges":["a","b"]}""";

        Assert.Equal(["a", "b"], records.ReadRound(Json(Good))!.Ranges);
        Assert.Equal(3, records.ReadRound(Json(Good))!.Number);
        Assert.Null(records.ReadRound(Json(Good.Replace("\"f1\"", "\"f2\"", StringComparison.Ordinal))));
        Assert.Null(records.ReadRound(Json(Good.Replace("[\"a\",\"b\"]", "[]", StringComparison.Ordinal))));
        Assert.Null(records.ReadRound(Json(Good.Replace("\"job\"", "\"other\"", StringComparison.Ordinal))));
        Assert.Null(records.ReadRound(Json(Good.Replace("[\"a\",\"b\"]", "[1]", StringComparison.Ordinal))));
    }

    [Fact]
    public void TheFingerprint_ChangesWithTheTargetsPathsTypesKeyAndTheKeysChecked()
    {
        string Of(ContainerEncryptionPolicy? target, params string[] keys) => RangeScanRecords.Fingerprint("db/c", target, keys, "Stream/64");
        var deterministic = new ContainerEncryptionPolicy("dek1", [new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic }]);
        string baseline = Of(new ContainerEncryptionPolicy("dek1", ["/ssn"]), "dek0");

        Assert.Equal(baseline, Of(new ContainerEncryptionPolicy("dek1", ["/ssn"]), "dek0"));
        Assert.NotEqual(baseline, Of(new ContainerEncryptionPolicy("dek1", ["/ssn", "/name"]), "dek0"));
        Assert.NotEqual(baseline, Of(new ContainerEncryptionPolicy("dek2", ["/ssn"]), "dek0"));
        Assert.NotEqual(baseline, Of(deterministic, "dek0"));
        Assert.NotEqual(baseline, Of(new ContainerEncryptionPolicy("dek1", ["/ssn"]), "dek0", "dek9"));
        Assert.NotEqual(baseline, Of(null, "dek0"));
    }
}

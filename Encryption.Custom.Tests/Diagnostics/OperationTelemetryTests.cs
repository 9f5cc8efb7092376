using System.Diagnostics;
using Encryption.Custom.Cosmos;
using Encryption.Custom.Diagnostics;
using Encryption.Custom.Tests.Cosmos.TestSupport;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Diagnostics;

/// <summary>Spans and measurements of container operations, and that nothing secret reaches them.</summary>
[Collection(TelemetryCollection.Name)]
public sealed class OperationTelemetryTests : IDisposable
{
    private const string Secret = "111-22-3333-secret";
    private readonly EncryptionSetup _setup = new();

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public void Dispose() => _setup.Dispose();

    [Fact]
    public void Start_NobodyListens_ReturnsNullAndMeasuresNothing()
    {
        Assert.False(EncryptionTelemetry.IsOperationObserved);
        Assert.Null(OperationTelemetry.Start(OperationNames.CreateItem, "c"));
    }

    [Fact]
    public async Task WriteAndRead_Listened_ReportSpansWithKeyIdCountsAndTimings()
    {
        using var capture = new TelemetryCapture();

        await _setup.CreateEncryptedAsync($$"""{"id":"a","pk":"p0","ssn":"{{Secret}}","n":7,"plain":"p"}""", EncryptionSetup.Dek2, "/ssn", "/n");
        JObject read = await _setup.ReadDecryptedAsync("a");

        Assert.Equal(Secret, (string?)read["ssn"]);
        Activity create = Assert.Single(capture.Activities, a => a.OperationName == DiagnosticNames.ActivityPrefix + OperationNames.CreateItemStream);
        Activity readActivity = Assert.Single(capture.Activities, a => a.OperationName == DiagnosticNames.ActivityPrefix + OperationNames.ReadItemStream);
        Assert.Equal(EncryptionSetup.Dek2, create.GetTagItem(DiagnosticNames.DataEncryptionKeyIdTag));
        Assert.Equal(2, create.GetTagItem(DiagnosticNames.PropertiesEncryptedTag));
        Assert.True((double)create.GetTagItem(DiagnosticNames.EncryptMillisecondsTag)! >= 0);
        Assert.Equal("Stream", create.GetTagItem(DiagnosticNames.ProcessorTag));
        Assert.Equal("fake", create.GetTagItem(DiagnosticNames.ContainerTag));
        Assert.Equal(201, create.GetTagItem(DiagnosticNames.StatusCodeTag));
        Assert.Equal(EncryptionSetup.Dek2, readActivity.GetTagItem(DiagnosticNames.DataEncryptionKeyIdTag));
        Assert.Equal(2, readActivity.GetTagItem(DiagnosticNames.PropertiesDecryptedTag));
        Assert.Equal(1, readActivity.GetTagItem(DiagnosticNames.DocumentsDecryptedTag));
        Assert.Equal(ActivityStatusCode.Unset, create.Status);

        Assert.True(capture.Sum(DiagnosticNames.Operations) >= 2);
        Assert.True(capture.Count(DiagnosticNames.EncryptDuration) >= 1);
        Assert.True(capture.Count(DiagnosticNames.DecryptDuration) >= 2);
        Assert.True(capture.Sum(DiagnosticNames.EncryptedBytes) > 0);
        Assert.True(capture.Sum(DiagnosticNames.DecryptedBytes) > 0);
        Assert.True(capture.Count(DiagnosticNames.OperationDuration) >= 2);
        AssertNothingSecret(capture);
    }

    [Fact]
    public async Task FailedWrite_Listened_MarksTheSpanAndCountsTheFailureByKind()
    {
        using var capture = new TelemetryCapture();

        await Assert.ThrowsAsync<EncryptionException>(() => _setup.Container.CreateItemStreamAsync(
            EncryptionSetup.ToStream($$"""{"id":"f","pk":"p0","ssn":"{{Secret}}"}"""), EncryptionSetup.P0, EncryptionSetup.Encrypt("unknown-dek", "/ssn"), Ct));

        Activity failed = Assert.Single(capture.Activities);
        Assert.Equal(ActivityStatusCode.Error, failed.Status);
        Assert.Equal(nameof(EncryptionErrorKind.KeyUnavailable), failed.GetTagItem(DiagnosticNames.ErrorTypeTag));
        (_, double value, Dictionary<string, object?> tags) = Assert.Single(capture.Measurements, m => m.Instrument == DiagnosticNames.OperationFailures);
        Assert.Equal(1, value);
        Assert.Equal(nameof(EncryptionErrorKind.KeyUnavailable), tags[DiagnosticNames.ErrorTypeTag]);
        Assert.Equal(OperationNames.CreateItemStream, tags[DiagnosticNames.OperationTag]);
        AssertNothingSecret(capture);
    }

    [Fact]
    public async Task TamperedRead_Listened_ReportsInvalidCipherTextWithoutValues()
    {
        JObject created = await _setup.CreateEncryptedAsync($$"""{"id":"t","pk":"p0","ssn":"{{Secret}}"}""", EncryptionSetup.Dek1, "/ssn");
        JObject stored = _setup.Inner.Get("t", EncryptionSetup.P0)!;
        string cipherText = (string)stored["ssn"]!;
        stored["ssn"] = cipherText[..10] + (cipherText[10] == 'A' ? 'B' : 'A') + cipherText[11..];
        _setup.Inner.Put(stored, EncryptionSetup.P0);
        using var capture = new TelemetryCapture();

        await Assert.ThrowsAsync<EncryptionException>(() => _setup.ReadDecryptedAsync("t"));

        Activity failed = Assert.Single(capture.Activities);
        Assert.Equal(nameof(EncryptionErrorKind.InvalidCipherText), failed.GetTagItem(DiagnosticNames.ErrorTypeTag));
        Assert.Equal(Secret, (string?)created["ssn"]);
        AssertNothingSecret(capture, cipherText);
    }

    [Fact]
    public async Task Batch_Listened_ReportsOneSpanForTheWholeBatch()
    {
        using var capture = new TelemetryCapture();
        var options = new EncryptionTransactionalBatchItemRequestOptions { EncryptionOptions = EncryptionSetup.Options(EncryptionSetup.Dek1, "/ssn") };

        using TransactionalBatchResponse response = await _setup.Container.CreateTransactionalBatch(EncryptionSetup.P0)
            .CreateItemStream(EncryptionSetup.ToStream($$"""{"id":"b1","pk":"p0","ssn":"{{Secret}}"}"""), options)
            .CreateItemStream(EncryptionSetup.ToStream($$"""{"id":"b2","pk":"p0","ssn":"{{Secret}}"}"""), options)
            .ExecuteAsync(Ct);

        Activity batch = Assert.Single(capture.Activities);
        Assert.Equal(DiagnosticNames.ActivityPrefix + OperationNames.TransactionalBatchExecute, batch.OperationName);
        Assert.Equal(2, batch.GetTagItem(DiagnosticNames.PropertiesEncryptedTag));
        Assert.Equal(2, batch.GetTagItem(DiagnosticNames.DocumentsDecryptedTag));
        AssertNothingSecret(capture);
    }

    private void AssertNothingSecret(TelemetryCapture capture, string? cipherText = null)
    {
        foreach (JObject body in _setup.Inner.ReceivedBodies)
        {
            if (body["ssn"] is JValue { Type: JTokenType.String } value)
            {
                string stored = (string)value!;
                Assert.DoesNotContain(capture.AllTagValues(), v => v.Contains(stored[..16], StringComparison.Ordinal));
            }
        }

        Assert.DoesNotContain(capture.AllTagValues(), v => v.Contains(Secret, StringComparison.Ordinal));
        if (cipherText is not null)
        {
            Assert.DoesNotContain(capture.AllTagValues(), v => v.Contains(cipherText[..16], StringComparison.Ordinal));
        }
    }
}

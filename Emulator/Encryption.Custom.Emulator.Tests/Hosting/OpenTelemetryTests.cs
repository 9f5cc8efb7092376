using System.Diagnostics;
using Encryption.Custom.Emulator.Tests.Encryption;
using Newtonsoft.Json.Linq;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Trace;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Hosting;

/// <summary>
/// The hosting package's OpenTelemetry registration (<see cref="CosmosEncryptionInstrumentationExtensions"/>) with the
/// real OpenTelemetry SDK and its in-memory exporter: a write, a read and a query through an encrypted container, and
/// a migration run, show up as spans and metrics, and no attribute of any of them carries the plaintext.
/// </summary>
public sealed class OpenTelemetryTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private const string Secret = "SSN-9f3c-0077";

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task WriteReadQueryAndMigration_AreTracedAndMeasured_WithoutPlaintext()
    {
        var activities = new List<Activity>();
        var metrics = new List<Metric>();
        // The providers listen to the library's source and meter process-wide, so tests running beside this one add to
        // the lists too: they are read only after the providers are disposed, and spans are told apart by container.
        using TracerProvider tracing = OpenTelemetry.Sdk.CreateTracerProviderBuilder().AddCosmosEncryptionInstrumentation().AddInMemoryExporter(activities).Build()!;
        using MeterProvider metering = OpenTelemetry.Sdk.CreateMeterProviderBuilder().AddCosmosEncryptionInstrumentation().AddInMemoryExporter(metrics).Build()!;

        var policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, [new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic }]);
        (Container raw, Container encrypted) = await fixture.CreateContainerAsync(options: new EncryptionContainerOptions { Policy = policy }, cancellationToken: Ct);
        var document = new JObject { ["id"] = "telemetry", ["pk"] = "p1", ["ssn"] = Secret };
        await encrypted.CreateItemAsync(document, new PartitionKey("p1"), cancellationToken: Ct);
        _ = await encrypted.ReadItemAsync<JObject>("telemetry", new PartitionKey("p1"), cancellationToken: Ct);
        QueryDefinition query = new QueryDefinition("SELECT * FROM c WHERE c.ssn = @ssn").WithParameter("@ssn", Secret);
        Assert.Single(await encrypted.GetItemQueryIterator<JObject>(query).ReadAllAsync(Ct));

        // A migration run: plaintext documents written around the library, then encrypted by the job.
        await raw.CreateItemAsync(new JObject { ["id"] = "plain", ["pk"] = "p2", ["ssn"] = Secret + "-2" }, new PartitionKey("p2"), cancellationToken: Ct);
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        await using (var job = new EncryptionMigrationJob(raw, fixture.Encryptor, policy, leases, Options()))
        {
            Assert.True((await RunAsync(job, Ct)).Completed);
        }

        tracing.ForceFlush();
        metering.ForceFlush();
        tracing.Dispose(); // again at the end of the scope: disposing twice is allowed
        metering.Dispose();

        string[] spans = [.. activities.Where(a => a.GetTagItem(DiagnosticNames.ContainerTag) as string == raw.Id).Select(a => a.DisplayName)];
        Assert.Contains(DiagnosticNames.ActivityPrefix + "CreateItem", spans);
        Assert.Contains(DiagnosticNames.ActivityPrefix + "ReadItem", spans);
        Assert.Contains(spans, name => name.StartsWith(DiagnosticNames.ActivityPrefix + "Query", StringComparison.Ordinal));

        string[] metricNames = [.. metrics.Select(m => m.Name)];
        Assert.Contains(DiagnosticNames.Operations, metricNames);
        Assert.Contains(DiagnosticNames.EncryptDuration, metricNames);
        Assert.Contains(DiagnosticNames.MigrationDocuments, metricNames);
        Assert.Contains(Points(metrics, DiagnosticNames.MigrationDocuments), point => Tags(point).Contains(new(DiagnosticNames.OutcomeTag, "rewritten")));

        // Nothing the application encrypted appears in a span's name, tags or events, or in a metric point's tags.
        IEnumerable<string?> attributes = activities
            .SelectMany(a => a.TagObjects.Select(t => t.Value?.ToString()).Append(a.DisplayName).Append(a.StatusDescription)
                .Concat(a.Events.SelectMany(e => e.Tags.Select(t => t.Value?.ToString()).Append(e.Name))))
            .Concat(metrics.Select(m => m.Name).Distinct().SelectMany(name => Points(metrics, name)).SelectMany(p => Tags(p).Select(t => t.Value?.ToString())));
        Assert.DoesNotContain(attributes, value => value is not null && value.Contains("SSN-9f3c", StringComparison.Ordinal));
    }

    private static List<MetricPoint> Points(List<Metric> metrics, string name)
    {
        var points = new List<MetricPoint>();
        foreach (Metric metric in metrics.Where(m => m.Name == name))
        {
            foreach (ref readonly MetricPoint point in metric.GetMetricPoints())
            {
                points.Add(point);
            }
        }

        return points;
    }

    private static List<KeyValuePair<string, object?>> Tags(MetricPoint point)
    {
        var tags = new List<KeyValuePair<string, object?>>();
        foreach (KeyValuePair<string, object?> tag in point.Tags)
        {
            tags.Add(tag);
        }

        return tags;
    }
}

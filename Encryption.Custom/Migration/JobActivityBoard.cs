using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Migration;

/// <summary>
/// The instances' activity records (<see cref="JobActivity"/>) in the job's lease container: one document per
/// instance, <c>{ kind: "encryption-migration-activity", processor, instance, work, reports, intervalSeconds }</c>,
/// written at each progress report and read back with the others of the same processor name. Written and read as
/// streams (the lease container's client may have any serializer). The id is a hash of the processor and instance
/// names: valid whatever characters they hold, and never one of the change feed processor's lease ids (which start
/// with the processor name). A record costs one upsert and one small query per report (about 12 RU), charged to the
/// job's budget, while another instance holds a lease; an instance that holds them all only writes a heartbeat
/// (<see cref="HeartbeatInterval"/>) and reads nothing. The instance deletes its record when its run ends.
/// </summary>
internal sealed class JobActivityBoard(Container leaseContainer, string processorName, string instanceName, TimeSpan interval, RequestUnitBudget budget)
{
    /// <summary>The <c>kind</c> of an activity record.</summary>
    public const string Kind = "encryption-migration-activity";

    private readonly string _id = IdOf(processorName, instanceName);
    private long _reports;

    /// <summary>The id of an instance's record (a hash of the two names, hex).</summary>
    public static string IdOf(string processorName, string instanceName) =>
        Kind + "-" + Convert.ToHexStringLower(SHA256.HashData(Encoding.UTF8.GetBytes(processorName + "\n" + instanceName)).AsSpan(0, 16));

    /// <summary>
    /// How often an instance that holds every lease writes its record (a heartbeat, read by nobody but an instance
    /// that starts and holds none yet, which must see that the leases' owner is alive): a third of the liveness.
    /// </summary>
    public TimeSpan HeartbeatInterval { get; } = TimeSpan.FromSeconds(JobActivity.LivenessSeconds(interval.TotalSeconds) / 3);

    /// <summary>Writes this instance's record with <paramref name="work"/> (no read).</summary>
    /// <exception cref="CosmosException">The lease container refused the write.</exception>
    public async Task PublishAsync(long work, CancellationToken cancellationToken)
    {
        _reports++;
        using var body = new MemoryStream();
        using (var writer = new Utf8JsonWriter(body))
        {
            writer.WriteStartObject();
            writer.WriteString("id", _id);
            writer.WriteString("partitionKey", _id); // the change feed processor also takes lease containers keyed by /partitionKey
            writer.WriteString("kind", Kind);
            writer.WriteString("processor", processorName);
            writer.WriteString("instance", instanceName);
            writer.WriteNumber("work", work);
            writer.WriteNumber("reports", _reports);
            writer.WriteNumber("intervalSeconds", interval.TotalSeconds);
            writer.WriteEndObject();
        }

        body.Position = 0;
        using ResponseMessage written = await leaseContainer.UpsertItemStreamAsync(body, new PartitionKey(_id), cancellationToken: cancellationToken).ConfigureAwait(false);
        budget.Charge(written.Headers.RequestCharge);
        written.EnsureSuccessStatusCode();
    }

    /// <summary>
    /// Writes this instance's record with <paramref name="work"/>, then reads every instance's of this processor name.
    /// </summary>
    /// <exception cref="CosmosException">The lease container refused the write or the query.</exception>
    public async Task<IReadOnlyList<InstanceActivity>> PublishAndReadAsync(long work, CancellationToken cancellationToken)
    {
        await PublishAsync(work, cancellationToken).ConfigureAwait(false);
        QueryDefinition query = new QueryDefinition("SELECT c.id, c.instance, c.work, c.reports, c.intervalSeconds, c._ts FROM c WHERE c.kind = @kind AND c.processor = @processor")
            .WithParameter("@kind", Kind)
            .WithParameter("@processor", processorName);
        var records = new List<InstanceActivity>();
        await LeaseContainerQuery.ForEachRowAsync(leaseContainer, query, budget, row => records.Add(Parse(row)), cancellationToken).ConfigureAwait(false);
        return records;
    }

    /// <summary>Deletes this instance's record (its run ended); a record already gone is fine.</summary>
    public async Task RemoveAsync(CancellationToken cancellationToken)
    {
        if (_reports == 0)
        {
            return; // never written: a lone instance
        }

        using ResponseMessage deleted = await leaseContainer.DeleteItemStreamAsync(_id, new PartitionKey(_id), cancellationToken: cancellationToken).ConfigureAwait(false);
        budget.Charge(deleted.Headers.RequestCharge);
        if (deleted.StatusCode != System.Net.HttpStatusCode.NotFound)
        {
            deleted.EnsureSuccessStatusCode();
        }
    }

    // A record another instance wrote: every member must be there with its type, else the record is refused (a
    // record this code does not understand is not guessed at): the run ends with this exception rather than judge
    // whether the job is idle, and so whether to sweep, without one instance's counts. The message names the record
    // (its id is a hash of the two names, and it holds counts only) so that it can be removed.
    internal static InstanceActivity Parse(JsonElement row)
    {
        // TryGetInt64 on a member that is not a number throws the JSON API's own exception (naming no record): the
        // kind is checked first (Number).
        if (row.TryGetProperty("instance", out JsonElement instance) && instance.ValueKind == JsonValueKind.String
            && Number(row, "work") is { } work && work.TryGetInt64(out long workValue)
            && Number(row, "reports") is { } reports && reports.TryGetInt64(out long reportsValue)
            && Number(row, "intervalSeconds") is { } seconds && seconds.TryGetDouble(out double secondsValue)
            && Number(row, "_ts") is { } timestamp && timestamp.TryGetInt64(out long timestampValue))
        {
            return new InstanceActivity(instance.GetString()!, workValue, reportsValue, timestampValue, secondsValue);
        }

        string id = row.TryGetProperty("id", out JsonElement idValue) && idValue.ValueKind == JsonValueKind.String ? idValue.GetString()! : "(no id)";
        throw new InvalidOperationException(
            $"The lease container holds a migration activity record ({Kind}, id '{id}') this version cannot read: a member is missing or of another type. "
            + "The run stops without judging whether the job is done (nothing was swept); delete the record, or run every instance with the same version.");
    }

    private static JsonElement? Number(JsonElement row, string name) =>
        row.TryGetProperty(name, out JsonElement value) && value.ValueKind == JsonValueKind.Number ? value : null;
}

using System.Diagnostics;
using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using Encryption.Custom.Performance.Tests.Infrastructure;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Performance.Tests.Migration;

/// <summary>
/// Whether more instances of <see cref="EncryptionMigrationJob"/> migrate faster (issue 36):
/// <c>EMULATOR_LATENCY_MS=20 EMULATOR_PARTITION_RANGES=8 Emulator/emulator.sh run -- dotnet run -c Release --project
/// Encryption.Custom.Performance.Tests -- MigrationScaling [--documents 10000] [--instances 1,2,4] [--trace] [--together]
/// [--split] [--writer]</c>. For each
/// instance count it seeds a container of several partition key ranges with 1 KB plaintext documents, starts the
/// first instance, starts the others at its first progress report (as several machines running the same command
/// would, without racing for the lease container's initialization), and times until every instance has returned.
/// </summary>
/// <remarks>
/// The endpoint's per-request latency makes each instance latency-bound, as a client across a network is (the bundled
/// endpoint answers in about a millisecond on loopback, so without it the endpoint's one thread and the two cores bind
/// first). Printed per instance count: documents per second end to end, request units per document over all
/// instances, documents rewritten in total (the count itself when none was rewritten twice), conflicts redone, and how
/// many documents each instance rewrote (how the change feed processor's leases fell), the cores this process used on
/// average and how busy the machine's cores were (whether the CPU binds). <c>--trace</c> adds one stderr line per
/// progress report and per job log event of every instance, timed from the run's start. <c>--split</c> splits the
/// range holding the most documents once a third of them are rewritten (the endpoint's test-only split route);
/// <c>--writer</c> runs an application beside the job (<see cref="ScalingWriter"/>) and reads back what it wrote: a
/// line after the row says how many writes, how many documents, and how many lost their last write. Exits 2 on bad
/// arguments, 1 when a run does not complete, rewrites a document twice (without a writer, whose own writes the job
/// may rewrite) or loses an update, else 0 (timings are not a pass/fail check).
/// </remarks>
public static class MigrationScaling
{
    public const string Name = "MigrationScaling";

    public static async Task<int> RunAsync(string[] args)
    {
        ArgumentNullException.ThrowIfNull(args);
        int documents = 10_000;
        int[] instances = [1, 2, 4];
        bool trace = false;
        bool together = false;
        bool split = false;
        bool writer = false;
        for (int i = 0; i < args.Length; i += 2)
        {
            string? value = i + 1 < args.Length ? args[i + 1] : null;
            if (args[i] == "--trace")
            {
                trace = true;
                i--;
            }
            else if (args[i] == "--together")
            {
                together = true;
                i--;
            }
            else if (args[i] == "--split")
            {
                split = true;
                i--;
            }
            else if (args[i] == "--writer")
            {
                writer = true;
                i--;
            }
            else if (args[i] == "--documents" && int.TryParse(value, NumberStyles.Integer, CultureInfo.InvariantCulture, out int parsed) && parsed > 0)
            {
                documents = parsed;
            }
            else if (args[i] == "--instances" && value is not null && TryParseCounts(value, out int[] counts))
            {
                instances = counts;
            }
            else
            {
                Console.Error.WriteLine($"usage: {Name} [--documents N] [--instances 1,2,4] [--trace] [--together] [--split] [--writer]");
                return 2;
            }
        }

        if (MigrationEndpoint.FromEnvironment() is not (Uri endpoint, string key))
        {
            return 2;
        }

        Console.WriteLine($"{Name}: {documents} documents of 1 KB, endpoint latency {Environment.GetEnvironmentVariable("EMULATOR_LATENCY_MS") ?? "(not set)"} ms, ranges {Environment.GetEnvironmentVariable("EMULATOR_PARTITION_RANGES") ?? "(default)"}");
        Console.WriteLine(string.Join('\n', MachineDescription.Describe().Select(item => $"- {item.Name}: {item.Value}")));
        Console.WriteLine("| instances | seconds | documents/s | speed-up | RU per document | rewritten | conflicts redone | rewritten per instance | harness CPU (cores) | machine CPU busy |");
        Console.WriteLine("|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|");
        bool ok = true;
        double? single = null;
        foreach (int count in instances)
        {
            (bool completed, double rate) = await MeasureAsync(endpoint, key, count, documents, single, new RunMode(trace, together, split, writer)).ConfigureAwait(false);
            single ??= rate;
            ok &= completed;
        }

        return ok ? 0 : 1;
    }

    private static bool TryParseCounts(string text, out int[] counts)
    {
        var list = new List<int>();
        foreach (string part in text.Split(','))
        {
            if (!int.TryParse(part, NumberStyles.Integer, CultureInfo.InvariantCulture, out int n) || n < 1 || n > 32)
            {
                counts = [];
                return false;
            }

            list.Add(n);
        }

        counts = [.. list];
        return counts.Length > 0;
    }

    private static async Task<(bool Completed, double Rate)> MeasureAsync(Uri endpoint, string key, int instances, int count, double? single, RunMode mode)
    {
        bool trace = mode.Trace;
        using CosmosClient admin = MigrationEndpoint.CreateClient(endpoint, key);
        Database database = (await admin.CreateDatabaseAsync("migration-scaling-" + Guid.NewGuid().ToString("N")).ConfigureAwait(false)).Database;
        var clients = new List<CosmosClient>();
        try
        {
            var properties = new ContainerProperties("documents", "/pk") { PartitionKeyDefinitionVersion = PartitionKeyDefinitionVersion.V2 };
            Container seeded = (await database.CreateContainerAsync(properties).ConfigureAwait(false)).Container;
            await database.CreateContainerAsync("leases", "/id").ConfigureAwait(false);
            using var kek = new LocalKeyWrapProvider();
            kek.AddAesKey("kek", RandomNumberGenerator.GetBytes(32));
            using var keys = new CosmosDataEncryptionKeyProvider(kek);
            await keys.InitializeAsync(database, "keys").ConfigureAwait(false);
            await keys.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync(
                "dek1", CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, LocalKeyWrapProvider.CreateMetadata("kek", KeyWrapAlgorithm.AesKeyWrap)).ConfigureAwait(false);
            var encryptor = new CosmosEncryptor(keys);
            await SeedAsync(seeded, count).ConfigureAwait(false);
            var policy = new ContainerEncryptionPolicy("dek1", ["/ssn", "/salary", "/profile"]);

            // One client per instance, as separate machines would have. (Creating a job does no I/O: the clock starts here.)
            long start = Stopwatch.GetTimestamp();
            TimeSpan cpuBefore = Process.GetCurrentProcess().TotalProcessorTime;
            MachineCpu? machineBefore = MachineCpu.Read();
            var jobs = new List<EncryptionMigrationJob>();
            for (int i = 0; i < instances; i++)
            {
                CosmosClient client = MigrationEndpoint.CreateClient(endpoint, key);
                clients.Add(client);
                var options = new EncryptionMigrationOptions
                {
                    InstanceName = "instance-" + i.ToString(CultureInfo.InvariantCulture),
                    PollInterval = TimeSpan.FromMilliseconds(200),
                    ProgressInterval = TimeSpan.FromSeconds(1),
                };
                if (trace)
                {
                    options.LoggerFactory = new TraceLogger(options.InstanceName, start);
                }

                jobs.Add(new EncryptionMigrationJob(client.GetContainer(database.Id, "documents"), encryptor, policy, client.GetContainer(database.Id, "leases"), options));
            }

            var firstReport = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            long[] rewrittenBy = new long[instances];
            Task<string>? splitting = null;
            int splitStarted = 0;
            IProgress<EncryptionMigrationProgress> Observed(int instance, Action<EncryptionMigrationProgress>? then = null) => new InlineProgress(p =>
            {
                if (trace)
                {
                    // Where the time goes per instance (issue 36): one stderr line per report.
                    Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture,
                        $"trace {instances} t={Stopwatch.GetElapsedTime(start).TotalSeconds:F1} i{instance} seen={p.DocumentsSeen} rewritten={p.DocumentsRewritten} skipped={p.DocumentsSkipped} conflicts={p.Conflicts} ru={p.RequestUnits:F0} lag={p.EstimatedLag}"));
                }

                Volatile.Write(ref rewrittenBy[instance], p.DocumentsRewritten);
                if (mode.Split && Volatile.Read(ref splitStarted) == 0 && Enumerable.Range(0, instances).Sum(i => Volatile.Read(ref rewrittenBy[i])) >= count / 3
                    && Interlocked.Exchange(ref splitStarted, 1) == 0)
                {
                    splitting = SplitLargestRangeAsync(endpoint, database.Id, "documents", start);
                }

                then?.Invoke(p);
            });

            ScalingWriter? writer = mode.Writer ? new ScalingWriter(clients[0].GetContainer(database.Id, "documents"), encryptor, policy, count) : null;
            using var stopWriter = new CancellationTokenSource();
            Task writing = writer?.RunAsync(stopWriter.Token) ?? Task.CompletedTask;

            // Staggered (the default): the others start at the first one's first report, as instances added to a running
            // job do. Together (--together): every instance at once, as the same command started on several machines.
            var runs = new List<Task<EncryptionMigrationResult>> { jobs[0].RunAsync(Observed(0, _ => firstReport.TrySetResult())) };
            if (!mode.Together)
            {
                await Task.WhenAny(firstReport.Task, runs[0]).ConfigureAwait(false);
            }

            runs.AddRange(jobs.Skip(1).Select((job, i) => job.RunAsync(Observed(i + 1))));
            EncryptionMigrationResult[] results = await Task.WhenAll(runs).ConfigureAwait(false);
            await stopWriter.CancelAsync().ConfigureAwait(false);
            await writing.ConfigureAwait(false);
            double seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
            double cores = (Process.GetCurrentProcess().TotalProcessorTime - cpuBefore).TotalSeconds / seconds;
            string machineBusy = MachineCpu.BusyPercent(machineBefore, MachineCpu.Read());
            foreach (EncryptionMigrationJob job in jobs)
            {
                await job.DisposeAsync().ConfigureAwait(false);
            }

            long rewritten = results.Sum(r => r.Progress.DocumentsRewritten);
            double rate = count / seconds;
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"| {instances} | {seconds:F1} | {rate:F0} | {(single is { } s ? rate / s : 1):F2} | {results.Sum(r => r.Progress.RequestUnits) / count:F2} | {rewritten} | {results.Sum(r => r.Progress.Conflicts)} | {string.Join(" / ", results.Select(r => r.Progress.DocumentsRewritten))} | {cores:F2} | {machineBusy} |"));
            bool completed = results.All(r => r.Completed) && (writer is null ? rewritten == count : rewritten <= count);
            if (splitting is not null)
            {
                Console.WriteLine("  " + await splitting.ConfigureAwait(false));
            }
            else if (mode.Split)
            {
                Console.WriteLine("  split: not reached (fewer than a third of the documents rewritten in reports)");
                completed = false;
            }

            if (writer is not null)
            {
                (int written, int lost) = await writer.CheckAsync().ConfigureAwait(false);
                Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"  writer: {writer.Writes} writes to {written} documents during the run, {lost} of them not holding their last write (lost updates)"));
                completed &= lost == 0;
            }

            if (!completed)
            {
                Console.Error.WriteLine($"{instances} instances: completed {results.Count(r => r.Completed)} of {instances}, {rewritten} rewritten of {count}.");
            }

            return (completed, rate);
        }
        finally
        {
            await database.DeleteAsync().ConfigureAwait(false);
            clients.ForEach(client => client.Dispose());
        }
    }

    // The endpoint's test-only split route (Emulator/README.md): splits the range holding the most documents.
    private static async Task<string> SplitLargestRangeAsync(Uri endpoint, string database, string container, long start)
    {
        double at = Stopwatch.GetElapsedTime(start).TotalSeconds;
        using var handler = new HttpClientHandler();
        if (endpoint.IsLoopback)
        {
            handler.ServerCertificateCustomValidationCallback = static (_, _, _, _) => true;
        }

        using var http = new HttpClient(handler) { BaseAddress = endpoint };
        using var body = new StringContent("{}", Encoding.UTF8, "application/json");
        using HttpResponseMessage response = await http.PostAsync($"_emulator/dbs/{Uri.EscapeDataString(database)}/colls/{Uri.EscapeDataString(container)}/split", body).ConfigureAwait(false);
        string answer = await response.Content.ReadAsStringAsync().ConfigureAwait(false);
        if (!response.IsSuccessStatusCode)
        {
            throw new InvalidOperationException($"The split failed: {(int)response.StatusCode} {answer}");
        }

        using var split = System.Text.Json.JsonDocument.Parse(answer);
        IEnumerable<string?> children = split.RootElement.GetProperty("children").EnumerateArray().Select(child => child.GetProperty("id").GetString());
        return string.Create(CultureInfo.InvariantCulture, $"split at {at:F1} s: range {split.RootElement.GetProperty("split").GetString()} into {string.Join(" and ", children)}");
    }

    // Plaintext documents of about 1 KB over 512 partition keys (spread over every range).
    private static async Task SeedAsync(Container container, int count)
    {
        string filler = new('x', 300);
        for (int start = 0; start < count; start += 100)
        {
            await Task.WhenAll(Enumerable.Range(start, Math.Min(100, count - start)).Select(async i =>
            {
                (string id, string pk) = ScalingWriter.Key(i);
                string json = string.Create(CultureInfo.InvariantCulture,
                    $$"""{"id":"{{id}}","pk":"{{pk}}","ssn":"123-45-{{i % 10000:D4}}","salary":{{i * 10}},"profile":{"street":"{{filler}}","city":"Springfield"},"notes":"{{filler}}"}""");
                using var body = new MemoryStream(Encoding.UTF8.GetBytes(json));
                using ResponseMessage response = await container.CreateItemStreamAsync(body, new PartitionKey(pk)).ConfigureAwait(false);
                response.EnsureSuccessStatusCode();
            })).ConfigureAwait(false);
        }
    }
}

/// <summary>How <see cref="MigrationScaling"/> runs: traced, instances started together, a split mid-run, a writer beside the job.</summary>
internal readonly record struct RunMode(bool Trace, bool Together, bool Split, bool Writer);

using System.Diagnostics.Tracing;
using System.Globalization;
using Encryption.Custom.Json;
using Encryption.Custom.Performance.Tests.Documents;
using Encryption.Custom.Performance.Tests.Scaling;

namespace Encryption.Custom.Performance.Tests.Allocation;

/// <summary>
/// Which types a processor allocates, by the runtime's own sampling: <c>dotnet run -c Release --project
/// Encryption.Custom.Performance.Tests -- AllocationProfile [--processor newtonsoft] [--operation encrypt]
/// [--shape mixed] [--size 8192] [--operations 2000]</c>. The runtime reports an allocation-tick event about every
/// 100 KB allocated, naming the type of the object that crossed the mark: over many operations the counts per type
/// are proportional to the bytes of that type. A profile to find what to cut, not a measurement to publish.
/// </summary>
public static class AllocationProfile
{
    public const string Name = "AllocationProfile";

    public static int Run(string[] args)
    {
        ArgumentNullException.ThrowIfNull(args);
        var values = new Dictionary<string, string>(StringComparer.Ordinal)
        {
            ["--processor"] = "newtonsoft", ["--operation"] = "encrypt", ["--shape"] = "mixed", ["--size"] = "8192", ["--operations"] = "2000",
        };
        for (int i = 0; i + 1 < args.Length; i += 2)
        {
            if (!values.ContainsKey(args[i]))
            {
                Console.Error.WriteLine($"Unknown argument '{args[i]}'.");
                return 2;
            }

            values[args[i]] = args[i + 1];
        }

        if (args.Length % 2 != 0
            || !Enum.TryParse(values["--processor"], ignoreCase: true, out JsonProcessor processor)
            || !Enum.TryParse(values["--operation"], ignoreCase: true, out ScalingOperation operation)
            || !Enum.TryParse(values["--shape"], ignoreCase: true, out DocumentShape shape)
            || !int.TryParse(values["--size"], NumberStyles.None, CultureInfo.InvariantCulture, out int size) || size < BenchmarkDocuments.MinimumSize
            || !int.TryParse(values["--operations"], NumberStyles.None, CultureInfo.InvariantCulture, out int operations) || operations < 1)
        {
            Console.Error.WriteLine($"usage: {Name} [--processor newtonsoft|stream] [--operation encrypt|decrypt] [--shape mixed] [--size 8192] [--operations 2000]");
            return 2;
        }

        using var scalingCase = new ScalingCase(processor, operation, BenchmarkDocuments.Create(shape, size));
        for (int i = 0; i < 20; i++)
        {
            scalingCase.Run();
        }

        long before = GC.GetAllocatedBytesForCurrentThread();
        using var listener = new AllocationTickListener();
        for (int i = 0; i < operations; i++)
        {
            scalingCase.Run();
        }

        long perOperation = (GC.GetAllocatedBytesForCurrentThread() - before) / operations;
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{Name}: {processor} {operation} {shape} {BenchmarkDocuments.Label(size)}: {perOperation:N0} B per operation; share of allocation ticks by type:"));
        KeyValuePair<string, long>[] byType = listener.Snapshot();
        long total = Math.Max(1, byType.Sum(pair => pair.Value));
        foreach ((string type, long count) in byType.OrderByDescending(pair => pair.Value).Take(25))
        {
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"  {count * 100.0 / total,5:F1} %  ~{perOperation * count / total,10:N0} B/op  {type}"));
        }

        return 0;
    }

    private sealed class AllocationTickListener : EventListener
    {
        private readonly Dictionary<string, long> _counts = new(StringComparer.Ordinal);

        public KeyValuePair<string, long>[] Snapshot()
        {
            lock (_counts)
            {
                return [.. _counts];
            }
        }

        protected override void OnEventSourceCreated(EventSource eventSource)
        {
            if (eventSource.Name == "Microsoft-Windows-DotNETRuntime")
            {
                EnableEvents(eventSource, EventLevel.Verbose, (EventKeywords)0x1); // GC keyword: GCAllocationTick
            }
        }

        protected override void OnEventWritten(EventWrittenEventArgs eventData)
        {
            if (eventData.EventName is not { } name || !name.StartsWith("GCAllocationTick", StringComparison.Ordinal) || eventData.PayloadNames is null)
            {
                return;
            }

            int index = eventData.PayloadNames.IndexOf("TypeName");
            string type = index >= 0 && eventData.Payload?[index] is string typeName ? typeName : "?";
            lock (_counts)
            {
                _counts[type] = _counts.GetValueOrDefault(type) + 1;
            }
        }
    }
}

using System.Diagnostics;
using System.Globalization;
using Encryption.Custom.Json;
using Encryption.Custom.Performance.Tests.Documents;

namespace Encryption.Custom.Performance.Tests.Scaling;

/// <summary>
/// One operation in a loop for a sampling profiler to watch: <c>DOTNET_PerfMapEnabled=1 perf record -g dotnet
/// bin/Release/net10.0/Encryption.Custom.Performance.Tests.dll HotLoop stream encrypt mixed 8192 10</c> (processor,
/// operation, shape, size, seconds, and optionally how many copies of the document the runs rotate over, as the
/// scaling check's do). With <c>crypto</c> as the processor it runs the crypto-only workload of the
/// efficiency ratio instead (the same AEAD calls without JSON), so the two profiles can be set side by side.
/// </summary>
public static class HotLoop
{
    public const string Name = "HotLoop";

    public static int Run(string[] args)
    {
        ArgumentNullException.ThrowIfNull(args);
        bool cryptoOnly = args.Length > 0 && string.Equals(args[0], "crypto", StringComparison.OrdinalIgnoreCase);
        int copies = 1;
        if (args.Length is not (5 or 6)
            || !(cryptoOnly || Enum.TryParse(args[0], ignoreCase: true, out JsonProcessor _))
            || !Enum.TryParse(args[1], ignoreCase: true, out ScalingOperation operation)
            || !Enum.TryParse(args[2], ignoreCase: true, out DocumentShape shape)
            || !int.TryParse(args[3], NumberStyles.None, CultureInfo.InvariantCulture, out int size) || size < BenchmarkDocuments.MinimumSize
            || !int.TryParse(args[4], NumberStyles.None, CultureInfo.InvariantCulture, out int seconds) || seconds < 1
            || (args.Length == 6 && (!int.TryParse(args[5], NumberStyles.None, CultureInfo.InvariantCulture, out copies) || copies < 1)))
        {
            Console.Error.WriteLine($"usage: {Name} stream|newtonsoft|crypto encrypt|decrypt mixed|published|lookup|nested|bound|committed|tokens <bytes> <seconds> [copies]");
            return 2;
        }

        BenchmarkDocument document = BenchmarkDocuments.Create(shape, size);
        using var key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        // Recorded only for the crypto-only loop: the recording key wraps the DEK, which documents with query tokens refuse.
        DocumentCryptoWorkload? workload = cryptoOnly ? DocumentCryptoWorkload.Record(document, key) : null;
        using var scalingCase = cryptoOnly ? null : new ScalingCase(Enum.Parse<JsonProcessor>(args[0], ignoreCase: true), operation, document, copies);
        Func<int> run = scalingCase is not null ? scalingCase.Run : operation == ScalingOperation.Encrypt ? workload!.EncryptAll : workload!.DecryptAll;
        long count = 0;
        long allocatedBefore = GC.GetTotalAllocatedBytes(precise: true);
        int[] collectionsBefore = [GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2)];
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed.TotalSeconds < seconds)
        {
            for (int i = 0; i < 100; i++)
            {
                run();
            }

            count += 100;
        }

        clock.Stop();
        long allocated = GC.GetTotalAllocatedBytes(precise: true) - allocatedBefore;

        // Bytes and collections per operation beside the time: a profile full of GC work is explained by these.
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{Name}: {count:N0} operations in {clock.Elapsed.TotalSeconds:F1} s, {clock.Elapsed.TotalMicroseconds / count:N1} µs and {allocated / count:N0} B per operation, collections gen0/1/2 {GC.CollectionCount(0) - collectionsBefore[0]}/{GC.CollectionCount(1) - collectionsBefore[1]}/{GC.CollectionCount(2) - collectionsBefore[2]}"));
        return 0;
    }
}

using System.Globalization;
using System.Runtime.InteropServices;
using System.Security.Cryptography;

namespace Encryption.Custom.Performance.Tests.Infrastructure;

/// <summary>What performance.md asks to record with every result: CPU, SHA-NI, cores, OS, .NET and OpenSSL.</summary>
public static class MachineDescription
{
    public static IReadOnlyList<(string Name, string Value)> Describe()
    {
        (string cpu, bool? shaNi) = ReadCpuInfo();
        return
        [
            ("CPU", cpu),
            ("SHA-NI", shaNi switch { true => "yes", false => "no", null => "unknown" }),
            ("logical cores", Environment.ProcessorCount.ToString(CultureInfo.InvariantCulture)),
            ("OS", RuntimeInformation.OSDescription),
            (".NET", $"{RuntimeInformation.FrameworkDescription} ({RuntimeInformation.ProcessArchitecture})"),
            ("OpenSSL", OpenSslVersion()),
            ("GC", (System.Runtime.GCSettings.IsServerGC ? "server" : "workstation")
                + (Environment.GetEnvironmentVariable("DOTNET_GCgen0size") is { Length: > 0 } gen0 ? $", young generation {gen0} (DOTNET_GCgen0size)" : string.Empty)),
        ];
    }

    private static (string Cpu, bool? ShaNi) ReadCpuInfo()
    {
        const string CpuInfo = "/proc/cpuinfo";
        if (!File.Exists(CpuInfo))
        {
            return (RuntimeInformation.ProcessArchitecture.ToString(), null);
        }

        string model = "unknown";
        bool? shaNi = null;
        foreach (string line in File.ReadLines(CpuInfo))
        {
            if (line.StartsWith("model name", StringComparison.Ordinal))
            {
                model = line[(line.IndexOf(':', StringComparison.Ordinal) + 1)..].Trim();
            }
            else if (line.StartsWith("flags", StringComparison.Ordinal))
            {
                shaNi = line.Split(' ').Contains("sha_ni");
                break;
            }
        }

        return (model, shaNi);
    }

    private static string OpenSslVersion()
    {
        if (!OperatingSystem.IsLinux())
        {
            return "not used on this platform";
        }

        try
        {
            // OPENSSL_VERSION_NUMBER of OpenSSL 3: 0xMNN00PP0.
            long version = SafeEvpPKeyHandle.OpenSslVersion;
            return string.Create(CultureInfo.InvariantCulture, $"{(version >> 28) & 0xF}.{(version >> 20) & 0xFF}.{(version >> 4) & 0xFF}");
        }
        catch (PlatformNotSupportedException)
        {
            return "unavailable";
        }
    }
}

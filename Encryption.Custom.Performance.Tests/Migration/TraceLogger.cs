using System.Diagnostics;
using System.Globalization;
using Microsoft.Extensions.Logging;

namespace Encryption.Custom.Performance.Tests.Migration;

/// <summary>
/// <c>MigrationScaling --trace</c>: the job's own log lines (start after the survey, sweeps, waits for leases, stop),
/// one stderr line each with the seconds since the measurement started and the instance, so that a run's phases can
/// be laid beside the endpoint's request log. The job logs ids and counts only, never a value.
/// </summary>
internal sealed class TraceLogger(string instance, long start) : ILogger, ILoggerFactory, ILoggerProvider
{
    public IDisposable? BeginScope<TState>(TState state)
        where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Information;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
    {
        // MigrationProgress (every report) is left out: the progress trace already has it.
        if (IsEnabled(logLevel) && eventId.Name != "MigrationProgress")
        {
            Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture, $"log t={Stopwatch.GetElapsedTime(start).TotalSeconds:F1} {instance} {eventId.Name}: {formatter(state, exception)}"));
        }
    }

    public ILogger CreateLogger(string categoryName) => this;

    public void AddProvider(ILoggerProvider provider)
    {
    }

    public void Dispose()
    {
    }
}

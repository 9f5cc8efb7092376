using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace Encryption.Custom.Tests.TestSupport;

/// <summary>A logger (and factory) that keeps every entry: event name, level, formatted message, exception text.</summary>
internal sealed class CapturingLogger : ILogger, ILoggerFactory
{
    public ConcurrentQueue<(string? EventName, LogLevel Level, string Message, string? Exception)> Entries { get; } = new();

    public string AllText => string.Join('\n', Entries.Select(entry => entry.Message + "\n" + entry.Exception));

    public IDisposable? BeginScope<TState>(TState state)
        where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => true;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
        Entries.Enqueue((eventId.Name, logLevel, formatter(state, exception), exception?.ToString()));

    public ILogger CreateLogger(string categoryName) => this;

    public void AddProvider(ILoggerProvider provider)
    {
    }

    public void Dispose()
    {
    }
}

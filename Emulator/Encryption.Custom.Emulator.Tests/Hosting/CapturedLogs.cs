using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace Encryption.Custom.Emulator.Tests.Hosting;

/// <summary>
/// A logger provider (and, for options that take one, a logger factory) that keeps every entry (category, event
/// name, formatted message, exception text) for assertions.
/// </summary>
public sealed class CapturedLogs : ILoggerProvider, ILoggerFactory
{
    private readonly ConcurrentQueue<Entry> _entries = new();

    public IReadOnlyList<Entry> Entries => [.. _entries];

    /// <summary>Everything written, messages and exceptions, as one text to search for secrets.</summary>
    public string AllText => string.Join('\n', _entries.Select(entry => entry.Message + "\n" + entry.Exception));

    public bool Has(string eventName, string containing) =>
        _entries.Any(entry => entry.EventName == eventName && entry.Message.Contains(containing, StringComparison.Ordinal));

    public ILogger CreateLogger(string categoryName) => new Logger(this, categoryName);

    public void AddProvider(ILoggerProvider provider) => throw new NotSupportedException("CapturedLogs is its own only provider.");

    public void Dispose()
    {
    }

    public sealed record Entry(string Category, LogLevel Level, string? EventName, string Message, string? Exception);

    private sealed class Logger(CapturedLogs owner, string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
            owner._entries.Enqueue(new Entry(category, logLevel, eventId.Name, formatter(state, exception), exception?.ToString()));
    }
}

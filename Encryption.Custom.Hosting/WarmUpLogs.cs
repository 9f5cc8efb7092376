using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace Encryption.Custom.Hosting;

/// <summary>
/// Keeps a warm-up failure to one log entry. The provider logs every failed key load (<c>DataEncryptionKeyLoadFailed</c>,
/// with its stack), the warm-up reported it again, and a start that failed on it was logged a third time by the host
/// with the same stack: three entries, two stacks, for one missing key. While the warm-up loads a DEK, the provider's
/// entry for that DEK's failed load is left out here (the provider's logger factory is wrapped), and the warm-up
/// reports the failure itself once: as the exception that fails the start (logged by the host), or as
/// <c>WarmUpFailed</c> with the exception when the host starts anyway. Only that event, only for the DEKs being
/// warmed and only while they are: a request of the application that meets the same failed load then is reported
/// by the warm-up's entry, and every later failure by the provider as usual.
/// </summary>
internal sealed class WarmUpLogs
{
    private const string LoadFailedEvent = "DataEncryptionKeyLoadFailed";
    private const string KeyIdField = "DataEncryptionKeyId";

    private readonly ConcurrentDictionary<string, int> _warming = new(StringComparer.Ordinal);

    /// <summary>The provider's logger factory, without its load failures of the DEKs being warmed.</summary>
    public ILoggerFactory Wrap(ILoggerFactory inner) => inner is Filter ? inner : new Filter(inner, this);

    /// <summary>Leaves out the provider's load failure of <paramref name="dataEncryptionKeyId"/> until disposed.</summary>
    public IDisposable Warming(string dataEncryptionKeyId)
    {
        _warming.AddOrUpdate(dataEncryptionKeyId, 1, static (_, n) => n + 1);
        return new Scope(this, dataEncryptionKeyId);
    }

    private bool Suppresses<TState>(EventId eventId, TState state) =>
        !_warming.IsEmpty
        && eventId.Name == LoadFailedEvent
        && state is IReadOnlyList<KeyValuePair<string, object?>> fields
        && fields.Any(field => field.Key == KeyIdField && field.Value is string id && _warming.ContainsKey(id));

    private sealed class Scope(WarmUpLogs owner, string id) : IDisposable
    {
        private int _disposed;

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _disposed, 1) == 0
                && owner._warming.AddOrUpdate(id, 0, static (_, n) => n - 1) <= 0)
            {
                owner._warming.TryRemove(new KeyValuePair<string, int>(id, 0));
            }
        }
    }

    private sealed class Filter(ILoggerFactory inner, WarmUpLogs owner) : ILoggerFactory
    {
        public ILogger CreateLogger(string categoryName) => new FilteredLogger(inner.CreateLogger(categoryName), owner);

        public void AddProvider(ILoggerProvider provider) => inner.AddProvider(provider);

        // The host owns the factory it gave; wrapping it does not take that over.
        public void Dispose()
        {
        }
    }

    private sealed class FilteredLogger(ILogger inner, WarmUpLogs owner) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => inner.BeginScope(state);

        public bool IsEnabled(LogLevel logLevel) => inner.IsEnabled(logLevel);

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            if (!owner.Suppresses(eventId, state))
            {
                inner.Log(logLevel, eventId, state, exception, formatter);
            }
        }
    }
}

using System.Collections.Concurrent;
using System.Diagnostics.Tracing;
using Encryption.Custom.Diagnostics;

namespace Encryption.Custom.Tests.Native.Memory;

/// <summary>Collects the key memory events of the <c>Encryption-Custom</c> event source written while it lives.</summary>
internal sealed class KeyMemoryEventListener : EventListener
{
    // Field initializers run before the base constructor, which may already call OnEventSourceCreated.
    private readonly ConcurrentQueue<EventWrittenEventArgs> _events = new();

    /// <summary>The "protection unavailable" events of one pool, as (feature, error code, protection obtained).</summary>
    public IReadOnlyList<(string Feature, int ErrorCode, string Protection)> RefusalsOf(int poolId) =>
        _events
            .Where(e => e.EventName == nameof(EncryptionEventSource.KeyMemoryProtectionUnavailable) && (int)e.Payload![0]! == poolId)
            .Select(e => ((string)e.Payload![1]!, (int)e.Payload[2]!, (string)e.Payload[3]!))
            .ToList();

    /// <summary>The "slab mapped" events of one pool, as (slot size, slot count, protection).</summary>
    public IReadOnlyList<(int SlotSize, int SlotCount, string Protection)> SlabsMappedBy(int poolId) =>
        _events
            .Where(e => e.EventName == nameof(EncryptionEventSource.KeyMemorySlabMapped) && (int)e.Payload![0]! == poolId)
            .Select(e => ((int)e.Payload![1]!, (int)e.Payload[2]!, (string)e.Payload[3]!))
            .ToList();

    /// <summary>Every payload value written, as text (to check that no key bytes appear).</summary>
    public IEnumerable<string> AllPayloadText() =>
        _events.SelectMany(e => e.Payload ?? []).Select(value => value?.ToString() ?? string.Empty);

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == "Encryption-Custom")
        {
            EnableEvents(eventSource, EventLevel.Verbose, EncryptionEventSource.Keywords.KeyMemory);
        }
    }

    protected override void OnEventWritten(EventWrittenEventArgs eventData) => _events.Enqueue(eventData);
}

using System.Diagnostics.Tracing;

namespace Encryption.Custom.Diagnostics;

/// <summary>
/// The library's <see cref="EventSource"/> (<c>Encryption-Custom</c>) for rare, operator-relevant events such as
/// key memory that could not be locked. Payloads never carry key bytes, plaintext or ciphertext.
/// </summary>
[EventSource(Name = "Encryption-Custom")]
internal sealed class EncryptionEventSource : EventSource
{
    /// <summary>The one instance.</summary>
    public static readonly EncryptionEventSource Log = new();

    private const int KeyMemoryProtectionUnavailableId = 1;
    private const int KeyMemorySlabMappedId = 2;

    // Payloads go through WriteEvent's EventSourcePrimitive overload: trim-safe, no unsafe code, and the small array
    // it allocates is paid only while a listener is enabled, for events that happen a few times per process.

    private EncryptionEventSource()
    {
    }

    /// <summary>Event groups a listener can enable separately.</summary>
    public static class Keywords
    {
        /// <summary>Protected key memory: what the platform granted and what it refused.</summary>
        public const EventKeywords KeyMemory = (EventKeywords)0x1;
    }

    /// <summary>
    /// A key memory protection was refused by the platform (limits, kernel, seccomp); keys keep working with
    /// the next best mechanism. Written once per pool and feature.
    /// </summary>
    /// <param name="poolId">The key memory pool (0 is the process-wide pool).</param>
    /// <param name="feature">The protection that was refused.</param>
    /// <param name="errorCode">The platform error (errno or Win32 error).</param>
    /// <param name="protection">What the memory got instead.</param>
    [Event(
        KeyMemoryProtectionUnavailableId,
        Level = EventLevel.Warning,
        Keywords = Keywords.KeyMemory,
        Message = "Key memory protection {1} is unavailable (pool {0}, platform error {2}); key memory now has: {3}.")]
    public void KeyMemoryProtectionUnavailable(int poolId, string feature, int errorCode, string protection)
    {
        if (IsEnabled())
        {
            WriteEvent(KeyMemoryProtectionUnavailableId, poolId, feature, errorCode, protection);
        }
    }

    /// <summary>A new region of key memory slots was mapped (happens once per 128 keys or so).</summary>
    /// <param name="poolId">The key memory pool (0 is the process-wide pool).</param>
    /// <param name="slotSize">The bytes per slot.</param>
    /// <param name="slotCount">The slots in the region.</param>
    /// <param name="protection">The protections the region got.</param>
    [Event(
        KeyMemorySlabMappedId,
        Level = EventLevel.Informational,
        Keywords = Keywords.KeyMemory,
        Message = "Key memory region mapped (pool {0}): {2} slots of {1} bytes; protection: {3}.")]
    public void KeyMemorySlabMapped(int poolId, int slotSize, int slotCount, string protection)
    {
        if (IsEnabled())
        {
            WriteEvent(KeyMemorySlabMappedId, poolId, slotSize, slotCount, protection);
        }
    }
}

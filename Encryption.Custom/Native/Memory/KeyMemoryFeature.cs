namespace Encryption.Custom.Native.Memory;

/// <summary>A platform mechanism the key memory asks for and that may be refused.</summary>
internal enum KeyMemoryFeature
{
    /// <summary>Linux <c>memfd_secret</c> pages.</summary>
    SecretMemory = 0,

    /// <summary>Locking the pages in RAM.</summary>
    Locking = 1,

    /// <summary>Excluding the pages from core dumps.</summary>
    DumpExclusion = 2,

    /// <summary>Hiding the pages from forked children.</summary>
    ForkProtection = 3,

    /// <summary>A page mapping of its own with guard pages (otherwise: the plain native heap).</summary>
    GuardedMapping = 4,
}

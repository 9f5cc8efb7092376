namespace Encryption.Custom.Native.Memory;

/// <summary>The protections a piece of key memory actually obtained from the platform.</summary>
[Flags]
internal enum KeyMemoryProtection
{
    /// <summary>Ordinary native heap memory.</summary>
    None = 0,

    /// <summary>Stored XOR-masked with a per-process random pad kept in a separate allocation.</summary>
    Masked = 1 << 0,

    /// <summary>Inaccessible pages before and after the region: overruns fault instead of reading neighbours.</summary>
    GuardPages = 1 << 1,

    /// <summary>Locked in RAM (<c>mlock</c> / <c>VirtualLock</c>): never written to swap.</summary>
    Locked = 1 << 2,

    /// <summary>Left out of core dumps (<c>MADV_DONTDUMP</c>).</summary>
    ExcludedFromDumps = 1 << 3,

    /// <summary>A forked child cannot read it (<c>MADV_WIPEONFORK</c>, or <c>MADV_DONTFORK</c> for secret memory).</summary>
    WipedOnFork = 1 << 4,

    /// <summary>Linux <c>memfd_secret</c>: removed from the kernel's direct map, unreadable through <c>/proc/pid/mem</c>.</summary>
    SecretMemory = 1 << 5,
}
